// CUDA RandomUniform, RandomStandardNormal and TruncatedNormal.
//
// A counter-based generator, Philox-4x32-10, evaluated on the device: block
// k of a kernel's stream is a pure function of (key, k), so every thread
// computes its own blocks and nothing is stored between steps. The key and
// stream come from the node's (seed, seed2) attrs (both 0: a random key
// from std::random_device), and every Compute reserves the next unused
// blocks of the stream on the host, so successive steps draw different
// numbers while a fresh kernel with the same seeds repeats its sequence.
// The stream layout and the distributions are the CPU kernels' (4 floats or
// 2 doubles per block; Box-Muller normals; truncated normals redrawn from
// the group's own 16 blocks until within two standard deviations), so the
// uniform samples equal the CPU's and the others agree to rounding.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/random_shape.h"

namespace af::gpu {
namespace {

// ---------------------------------------------------------------------------
// Philox-4x32-10 on the device.

struct PhiloxKeyStream {
  uint32_t key0, key1;
  uint64_t stream;
};

__device__ __forceinline__ uint4 PhiloxBlock(const PhiloxKeyStream& ks, uint64_t index) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;
  uint4 c = make_uint4(static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                       static_cast<uint32_t>(ks.stream), static_cast<uint32_t>(ks.stream >> 32));
  uint32_t k0 = ks.key0, k1 = ks.key1;
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kBump0;
      k1 += kBump1;
    }
    const uint32_t hi0 = __umulhi(kMul0, c.x), lo0 = kMul0 * c.x;
    const uint32_t hi1 = __umulhi(kMul1, c.z), lo1 = kMul1 * c.z;
    c = make_uint4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
  }
  return c;
}

// [0, 1) from 23 random mantissa bits.
__device__ __forceinline__ float UnitFloat(uint32_t x) {
  return __uint_as_float((x & 0x7FFFFFu) | 0x3F800000u) - 1.0f;
}
// [0, 1) from 52 random mantissa bits.
__device__ __forceinline__ double UnitDouble(uint32_t hi, uint32_t lo) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  return __longlong_as_double(
             static_cast<long long>((x & 0xFFFFFFFFFFFFFull) | 0x3FF0000000000000ull)) -
         1.0;
}

__device__ __forceinline__ void BoxMuller(float u1, float u2, float* z0, float* z1) {
  const float r = sqrtf(-2.0f * logf(1.0f - u1));  // 1 - u1 in (0, 1]: finite
  float s, c;
  sincospif(2.0f * u2, &s, &c);
  *z0 = r * c;
  *z1 = r * s;
}
__device__ __forceinline__ void BoxMuller(double u1, double u2, double* z0, double* z1) {
  const double r = sqrt(-2.0 * log(1.0 - u1));
  double s, c;
  sincospi(2.0 * u2, &s, &c);
  *z0 = r * c;
  *z1 = r * s;
}

// ---------------------------------------------------------------------------
// Distributions: each fills a group of kGroup outputs from the blocks it
// owns (kBlocks of them from `first`).

template <typename T>
struct Uniform {
  static constexpr bool kDouble = std::is_same_v<T, double>;
  static constexpr int kGroup = kDouble ? 2 : 4;
  static constexpr int kBlocks = 1;
  __device__ __forceinline__ void operator()(const PhiloxKeyStream& ks, uint64_t first,
                                             T* out) const {
    const uint4 b = PhiloxBlock(ks, first);
    if constexpr (kDouble) {
      out[0] = UnitDouble(b.x, b.y);
      out[1] = UnitDouble(b.z, b.w);
    } else if constexpr (std::is_same_v<T, __half>) {
      // Only as many bits as the type holds, so rounding never reaches 1.
      const uint32_t w[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        out[i] = __float2half_rn(static_cast<float>(w[i] & 0x3FFu) * (1.0f / 1024.0f));
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      const uint32_t w[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        out[i] = __float2bfloat16_rn(static_cast<float>(w[i] & 0x7Fu) * (1.0f / 128.0f));
    } else {
      out[0] = UnitFloat(b.x);
      out[1] = UnitFloat(b.y);
      out[2] = UnitFloat(b.z);
      out[3] = UnitFloat(b.w);
    }
  }
};

template <typename T>
struct Normal {
  static constexpr bool kDouble = std::is_same_v<T, double>;
  static constexpr int kGroup = kDouble ? 2 : 4;
  static constexpr int kBlocks = 1;
  __device__ __forceinline__ void operator()(const PhiloxKeyStream& ks, uint64_t first,
                                             T* out) const {
    const uint4 b = PhiloxBlock(ks, first);
    if constexpr (kDouble) {
      BoxMuller(UnitDouble(b.x, b.y), UnitDouble(b.z, b.w), &out[0], &out[1]);
    } else {
      float z[4];
      BoxMuller(UnitFloat(b.x), UnitFloat(b.y), &z[0], &z[1]);
      BoxMuller(UnitFloat(b.z), UnitFloat(b.w), &z[2], &z[3]);
#pragma unroll
      for (int i = 0; i < 4; ++i) out[i] = FromAcc<T>(z[i]);
    }
  }
};

template <typename T>
struct TruncatedNormal {
  static constexpr bool kDouble = std::is_same_v<T, double>;
  static constexpr int kGroup = kDouble ? 2 : 4;
  static constexpr int kBlocks = 16;  // ~95% of candidates are kept
  using C = std::conditional_t<kDouble, double, float>;
  __device__ __forceinline__ void operator()(const PhiloxKeyStream& ks, uint64_t first,
                                             T* out) const {
    int filled = 0;
    // Reads on past the group's blocks in the (astronomically unlikely)
    // case that 16 blocks do not yield kGroup values.
    for (uint64_t block = first; filled < kGroup; ++block) {
      C z[Normal<C>::kGroup];
      Normal<C>()(ks, block, z);
#pragma unroll
      for (int i = 0; i < Normal<C>::kGroup; ++i) {
        if (filled < kGroup && fabs(z[i]) < C(2)) {
          if constexpr (kDouble) {
            out[filled] = z[i];
          } else {
            out[filled] = FromAcc<T>(z[i]);
          }
          ++filled;
        }
      }
    }
  }
};

template <typename T, typename Dist>
__global__ void __launch_bounds__(kThreads)
    RandomKernel(PhiloxKeyStream ks, uint64_t first_block, T* __restrict__ out, int64_t n) {
  constexpr int kGroup = Dist::kGroup;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const Dist dist;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups;
       g += stride) {
    T values[kGroup];
    dist(ks, first_block + static_cast<uint64_t>(g) * Dist::kBlocks, values);
    const int64_t offset = g * kGroup;
#pragma unroll
    for (int i = 0; i < kGroup; ++i)
      if (offset + i < n) out[offset + i] = values[i];
  }
}

// ---------------------------------------------------------------------------

template <template <typename> class Dist>
class CudaRandomOp : public OpKernel {
 public:
  explicit CudaRandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(random::ShapeFromTensor(ctx->input(0), &shape)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    const random::PhiloxStream& ps = generator_.stream();
    const PhiloxKeyStream ks{ps.key[0], ps.key[1], ps.stream};
    Status s;
    const bool known = VisitFloat(output_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using D = Dist<T>;
      const int64_t groups = (n + D::kGroup - 1) / D::kGroup;
      const uint64_t first = generator_.Reserve(static_cast<uint64_t>(groups) * D::kBlocks);
      RandomKernel<T, D><<<GridFor(groups, kThreads), kThreads, 0, stream>>>(
          ks, first, static_cast<T*>(out->raw_data()), n);
      s = CheckLaunch("RandomKernel");
    });
    OP_REQUIRES(ctx, known,
                ctx->NodeError(errors::Unimplemented(type_string(), " has no GPU kernel for ",
                                                     DataTypeString(output_type(0)))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }

 private:
  random::GuardedPhilox generator_;
};

}  // namespace

REGISTER_CUDA_KERNEL("RandomUniform", CudaRandomOp<Uniform>);
REGISTER_CUDA_KERNEL("RandomStandardNormal", CudaRandomOp<Normal>);
REGISTER_CUDA_KERNEL("TruncatedNormal", CudaRandomOp<TruncatedNormal>);

}  // namespace af::gpu
