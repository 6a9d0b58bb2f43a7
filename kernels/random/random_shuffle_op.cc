// RandomShuffle: a Fisher-Yates permutation of the first dimension, drawn
// from the kernel's Philox stream, then the rows gathered into the output.
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/random/guarded_philox.h"

namespace af {
namespace {

class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (in.dims() == 0 || in.dim_size(0) <= 1) {
      ctx->set_output(0, in);  // nothing to permute
      return;
    }
    const int64_t rows = in.dim_size(0);
    // Draw j in [0, i] for i = rows-1 .. 1: 64 bits per draw, two per block.
    const uint64_t draws = static_cast<uint64_t>(rows - 1);
    const uint64_t first = generator_.Reserve((draws + 1) / 2);
    std::vector<int64_t> perm(static_cast<size_t>(rows));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    random::PhiloxBlock block{};
    for (uint64_t d = 0; d < draws; ++d) {
      if (d % 2 == 0) block = generator_.stream().Block(first + d / 2);
      const int k = static_cast<int>(d % 2) * 2;
      const uint64_t bits = (static_cast<uint64_t>(block[k]) << 32) | block[k + 1];
      const int64_t i = rows - 1 - static_cast<int64_t>(d);
      const int64_t j = static_cast<int64_t>(bits % static_cast<uint64_t>(i + 1));
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
    }

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t row_elements = in.NumElements() / rows;
    if (BaseType(in.dtype()) == DT_STRING) {
      const std::string* src = in.data<std::string>();
      std::string* dst = out->data<std::string>();
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t e = 0; e < row_elements; ++e)
          dst[r * row_elements + e] = src[perm[static_cast<size_t>(r)] * row_elements + e];
      return;
    }
    const size_t row_bytes = in.TotalBytes() / static_cast<size_t>(rows);
    if (row_bytes == 0) return;
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(dst + r * row_bytes, src + perm[static_cast<size_t>(r)] * row_bytes, row_bytes);
  }

 private:
  random::GuardedPhilox generator_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("RandomShuffle").Device(DEVICE_CPU), RandomShuffleOp);

}  // namespace af
