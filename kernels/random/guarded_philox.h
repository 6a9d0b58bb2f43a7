// The generator state of one random kernel: a Philox stream fixed by the
// node's (seed, seed2) attrs and a position that every Compute advances by
// the blocks it reserves. So two runs of a step give different numbers, and
// a fresh kernel with the same seeds repeats the sequence (TensorFlow's
// behaviour). Both seeds 0 means "not reproducible": a random stream.
#pragma once

#include <cstdint>
#include <mutex>

#include "core/op_kernel.h"
#include "kernels/random/philox.h"

namespace af::random {

class GuardedPhilox {
 public:
  // Reads the "seed" and "seed2" attrs.
  Status Init(OpKernelConstruction* ctx);
  void Init(int64_t seed, int64_t seed2);

  const PhiloxStream& stream() const { return stream_; }
  // Reserves `num_blocks` consecutive blocks; returns the index of the first.
  uint64_t Reserve(uint64_t num_blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t first = next_block_;
    next_block_ += num_blocks;
    return first;
  }

 private:
  PhiloxStream stream_;
  std::mutex mu_;  // guards next_block_
  uint64_t next_block_ = 0;
};

}  // namespace af::random
