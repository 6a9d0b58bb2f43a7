// Batches drawn from examples held in memory: each pass visits every
// example once in a fresh order (seeded, so a worker's stream is
// reproducible and two workers with different seeds see different ones).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/tensor.h"
#include "examples/fashion_mnist/input_pipeline.h"

namespace af::fmnist {

class BatchSampler {
 public:
  BatchSampler(const RawExamples& examples, int batch, uint64_t seed);

  // The next `batch` examples: pixels uint8 [batch, 784], labels int32
  // [batch]. New tensors each call, since a step's feeds may outlive it.
  void Next(Tensor* pixels, Tensor* labels);

 private:
  void Reshuffle();

  const RawExamples& examples_;
  const int batch_;
  std::mt19937_64 rng_;
  std::vector<int64_t> order_;
  size_t next_ = 0;
};

}  // namespace af::fmnist
