// RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt.
// Each Compute reserves blocks of the kernel's Philox stream and fills the
// output group by group, in parallel on the device's pool when large; a
// sample depends only on its index, never on the thread that made it.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/random/distributions.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/random_shape.h"

namespace af {
namespace {

using random::GuardedPhilox;
using random::PhiloxStream;

// The output shape from the "shape" input `input`.
Status ShapeFromInput(OpKernelContext* ctx, int input, TensorShape* out) {
  return ctx->NodeError(random::ShapeFromTensor(ctx->input(input), out));
}

// Fills out[0, n) with groups of Dist::kGroupSize samples; group g reads
// blocks first_block + g * Dist::kBlocksPerGroup onwards.
template <typename T, typename Dist>
void FillGroups(OpKernelContext* ctx, const Dist& dist, const PhiloxStream& stream,
                uint64_t first_block, T* out, int64_t n) {
  constexpr int kGroup = Dist::kGroupSize;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  auto fill = [&](int64_t begin, int64_t end) {
    for (int64_t g = begin; g < end; ++g) {
      const uint64_t block = first_block + static_cast<uint64_t>(g) * Dist::kBlocksPerGroup;
      const int64_t offset = g * kGroup;
      if (offset + kGroup <= n) {
        dist(stream, block, out + offset);
      } else {
        T tail[kGroup];
        dist(stream, block, tail);
        std::copy(tail, tail + (n - offset), out + offset);
      }
    }
  };
  ThreadPoolInterface* pool = ctx->device() ? ctx->device()->intra_op_pool() : nullptr;
  if (pool == nullptr || groups < 1024) {
    fill(0, groups);
  } else {
    pool->ParallelFor(groups, Dist::kCyclesPerGroup, std::cref(fill));
  }
}

template <typename T, template <typename> class Dist>
class RandomOp : public OpKernel {
 public:
  explicit RandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(ctx, 0, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    using D = Dist<T>;
    const uint64_t groups = static_cast<uint64_t>((n + D::kGroupSize - 1) / D::kGroupSize);
    const uint64_t first = generator_.Reserve(groups * D::kBlocksPerGroup);
    FillGroups<T>(ctx, D(), generator_.stream(), first, out->data<T>(), n);
  }

 private:
  GuardedPhilox generator_;
};

// Uniform integers in [lo, hi): 64 random bits per sample, reduced modulo
// the range (a bias below 2^-32 for ranges that fit in 32 bits).
template <typename T>
struct UniformIntDistribution {
  static constexpr int kGroupSize = 2;
  static constexpr int kBlocksPerGroup = 1;
  static constexpr int kCyclesPerGroup = 80;
  T lo;
  uint64_t range;

  void operator()(const PhiloxStream& s, uint64_t first_block, T* out) const {
    const random::PhiloxBlock b = s.Block(first_block);
    for (int i = 0; i < 2; ++i) {
      const uint64_t bits = (static_cast<uint64_t>(b[2 * i]) << 32) | b[2 * i + 1];
      out[i] = static_cast<T>(static_cast<uint64_t>(lo) + bits % range);
    }
  }
};

template <typename T>
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(ctx, 0, &shape));
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    OP_REQUIRES(ctx, minval.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("minval must be 0-D, got shape ",
                                                       minval.shape().DebugString())));
    OP_REQUIRES(ctx, maxval.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("maxval must be 0-D, got shape ",
                                                       maxval.shape().DebugString())));
    const T lo = minval.scalar<T>(), hi = maxval.scalar<T>();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    OP_REQUIRES(ctx, lo < hi,
                ctx->NodeError(errors::InvalidArgument("Need minval < maxval: ", lo,
                                                       " >= ", hi)));
    UniformIntDistribution<T> dist{lo, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)};
    const uint64_t groups = static_cast<uint64_t>((n + 1) / 2);
    const uint64_t first = generator_.Reserve(groups);
    FillGroups<T>(ctx, dist, generator_.stream(), first, out->data<T>(), n);
  }

 private:
  GuardedPhilox generator_;
};

#define AF_REGISTER_RANDOM(OP, DIST, T)                                                     \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(OP).Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
                          RandomOp<T, random::DIST>)
#define AF_REGISTER_RANDOM_ALL(OP, DIST) \
  AF_REGISTER_RANDOM(OP, DIST, float);   \
  AF_REGISTER_RANDOM(OP, DIST, double);  \
  AF_REGISTER_RANDOM(OP, DIST, half);    \
  AF_REGISTER_RANDOM(OP, DIST, bfloat16)

AF_REGISTER_RANDOM_ALL("RandomUniform", UniformDistribution);
AF_REGISTER_RANDOM_ALL("RandomStandardNormal", NormalDistribution);
AF_REGISTER_RANDOM_ALL("TruncatedNormal", TruncatedNormalDistribution);
#undef AF_REGISTER_RANDOM_ALL
#undef AF_REGISTER_RANDOM

REGISTER_KERNEL_BUILDER(KernelDefBuilder("RandomUniformInt").Device(DEVICE_CPU).TypeConstraint<int32_t>("Tout"),
                        RandomUniformIntOp<int32_t>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RandomUniformInt").Device(DEVICE_CPU).TypeConstraint<int64_t>("Tout"),
                        RandomUniformIntOp<int64_t>);

}  // namespace
}  // namespace af
