// CUDA Cast among the types that live in device memory.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/vec_loop.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

// ---------------------------------------------------------------------------
// Cast among the device types, with the CPU's conversions
// (kernels/math/cast_functors.h): float -> small integer truncates toward
// zero through int32 (NaN and out-of-range give INT32_MIN's low bits),
// integer narrowing wraps, 16-bit floats round to nearest even from float
// (double goes through float), and Truncate drops mantissa bits first.

template <typename T>
constexpr bool kHalfLike = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
constexpr bool kFloating = std::is_floating_point_v<T> || kHalfLike<T>;

template <typename T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, double>) return 52;
  if constexpr (std::is_same_v<T, float>) return 23;
  if constexpr (std::is_same_v<T, __half>) return 10;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return 7;
  return 0;
}

template <typename T>
__device__ __forceinline__ auto BitsOf(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return static_cast<uint64_t>(__double_as_longlong(v));
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<uint32_t>(__float_as_uint(v));
  } else if constexpr (std::is_same_v<T, __half>) {
    return static_cast<uint16_t>(__half_as_ushort(v));
  } else {
    return static_cast<uint16_t>(__bfloat16_as_ushort(v));
  }
}
template <typename T, typename B>
__device__ __forceinline__ T FromBits(B b) {
  if constexpr (std::is_same_v<T, double>) {
    return __longlong_as_double(static_cast<long long>(b));
  } else if constexpr (std::is_same_v<T, float>) {
    return __uint_as_float(static_cast<unsigned>(b));
  } else if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(static_cast<unsigned short>(b));
  } else {
    return __ushort_as_bfloat16(static_cast<unsigned short>(b));
  }
}

template <typename Dst, typename Src>
__device__ __forceinline__ Src TruncateMantissa(Src v) {
  constexpr int drop = MantissaBits<Src>() - MantissaBits<Dst>();
  if constexpr (drop <= 0) {
    return v;
  } else {
    using B = decltype(BitsOf(v));
    const B all = static_cast<B>(~B{0});
    const B sign = static_cast<B>(all ^ static_cast<B>(all >> 1));
    const B mantissa = static_cast<B>((B{1} << MantissaBits<Src>()) - 1);
    const B exponent = static_cast<B>(all & ~sign & ~mantissa);
    const B mask = static_cast<B>(~((B{1} << drop) - 1));
    const B bits = BitsOf(v);
    const bool is_nan = static_cast<B>(bits & ~sign) > exponent;
    return FromBits<Src>(is_nan ? bits : static_cast<B>(bits & mask));
  }
}

template <typename T>
__device__ __forceinline__ auto Widen(T v) {
  if constexpr (kHalfLike<T>) {
    return ToAcc(v);
  } else {
    return v;
  }
}

template <typename I, typename F>
__device__ __forceinline__ I FloatToSmallInt(F v) {
  if (!(v >= F(-2147483648.0) && v < F(2147483648.0)))
    return static_cast<I>(static_cast<int32_t>(INT32_MIN));
  return static_cast<I>(static_cast<int32_t>(v));
}

template <typename Dst, typename Src>
__device__ __forceinline__ Dst Convert(Src v) {
  const auto w = Widen(v);
  using W = decltype(w);
  if constexpr (std::is_same_v<Dst, __half>) {
    return __float2half_rn(static_cast<float>(w));
  } else if constexpr (std::is_same_v<Dst, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(w));
  } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<W>) {
    return FloatToSmallInt<Dst>(w);
  } else {
    return static_cast<Dst>(w);
  }
}

template <typename Src, typename Dst>
struct CastBody {
  const Src* x;
  Dst* y;
  bool truncate;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Vec<Src, N> a = LoadVec<N>(x + e);
    Vec<Dst, N> r;
    if constexpr (kFloating<Src> && kFloating<Dst>) {
      if (truncate) {
#pragma unroll
        for (int k = 0; k < N; ++k) r.v[k] = Convert<Dst>(TruncateMantissa<Dst>(a.v[k]));
        StoreVec<N>(y + e, r);
        return;
      }
    }
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = Convert<Dst>(a.v[k]);
    StoreVec<N>(y + e, r);
  }
};

class CudaCastOp : public OpKernel {
 public:
  explicit CudaCastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    bool src_ok = VisitDeviceType(src_, [](auto) {});
    bool dst_ok = VisitDeviceType(dst_, [](auto) {});
    OP_REQUIRES(ctx, src_ == dst_ || (src_ok && dst_ok),
                errors::Unimplemented("Cast ", DataTypeString(src_), " to ",
                                      DataTypeString(dst_), " is not supported on GPU"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    if (n == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    VisitDeviceType(src_, [&](auto src_tag) {
      using Src = typename decltype(src_tag)::type;
      VisitDeviceType(dst_, [&](auto dst_tag) {
        using Dst = typename decltype(dst_tag)::type;
        constexpr int N = 4;
        const Src* xp = static_cast<const Src*>(x.raw_data());
        Dst* yp = static_cast<Dst*>(out->raw_data());
        const bool vec = Aligned(xp, sizeof(Src) * N) && Aligned(yp, sizeof(Dst) * N);
        s = LaunchVecLoop<N>(stream, n, vec, CastBody<Src, Dst>{xp, yp, truncate_}, "CastKernel");
      });
    });
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
  bool truncate_ = false;
};

}  // namespace

REGISTER_CUDA_KERNEL("Cast", CudaCastOp);

}  // namespace af::gpu
