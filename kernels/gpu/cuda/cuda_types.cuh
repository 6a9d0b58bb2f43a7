// What the .cu kernels share: the type tag and the dtype dispatch, the
// compute (accumulate) types and the __half / __nv_bfloat16 conversions,
// the math of the compute types, 16-byte vector accesses, and the launch
// helpers (block size, grid, the kernel's stream). Included by .cu files
// only (nvcc).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_util.h"

namespace af::gpu {

// ---------------------------------------------------------------------------
// Types.

template <typename T>
struct Tag {
  using type = T;
};

// Calls fn(Tag<T>{}) with the device type of a floating dtype (float,
// double, half, bfloat16); false for any other dtype.
template <typename Fn>
bool VisitFloat(DataType dt, Fn&& fn) {
  switch (BaseType(dt)) {
    case DT_FLOAT: fn(Tag<float>{}); return true;
    case DT_DOUBLE: fn(Tag<double>{}); return true;
    case DT_HALF: fn(Tag<__half>{}); return true;
    case DT_BFLOAT16: fn(Tag<__nv_bfloat16>{}); return true;
    default: return false;
  }
}

// The same for float and double only.
template <typename Fn>
bool VisitFloatOrDouble(DataType dt, Fn&& fn) {
  switch (BaseType(dt)) {
    case DT_FLOAT: fn(Tag<float>{}); return true;
    case DT_DOUBLE: fn(Tag<double>{}); return true;
    default: return false;
  }
}

// Compute type: half and bfloat16 compute in float, the others in
// themselves.
template <typename T>
struct AccType {
  using type = T;
};
template <>
struct AccType<__half> {
  using type = float;
};
template <>
struct AccType<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using Acc = typename AccType<T>::type;

// v in its compute type Acc<T> (ToAcc(v)), or in A (ToAcc<A>(v)).
template <typename A = void, typename T>
__device__ __forceinline__ auto ToAcc(T v) {
  using R = std::conditional_t<std::is_void_v<A>, Acc<T>, A>;
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<R>(__half2float(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<R>(__bfloat162float(v));
  } else {
    return static_cast<R>(v);
  }
}

// v (of any arithmetic type) as a T, rounding to nearest for half and
// bfloat16.
template <typename T, typename A>
__device__ __forceinline__ T FromAcc(A v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// ---------------------------------------------------------------------------
// Math on the compute types.

__device__ __forceinline__ float DExp(float a) { return expf(a); }
__device__ __forceinline__ double DExp(double a) { return exp(a); }
__device__ __forceinline__ float DExpm1(float a) { return expm1f(a); }
__device__ __forceinline__ double DExpm1(double a) { return expm1(a); }
__device__ __forceinline__ float DLog(float a) { return logf(a); }
__device__ __forceinline__ double DLog(double a) { return log(a); }
__device__ __forceinline__ float DLog1p(float a) { return log1pf(a); }
__device__ __forceinline__ double DLog1p(double a) { return log1p(a); }
__device__ __forceinline__ float DSqrt(float a) { return sqrtf(a); }
__device__ __forceinline__ double DSqrt(double a) { return sqrt(a); }
__device__ __forceinline__ float DTanh(float a) { return tanhf(a); }
__device__ __forceinline__ double DTanh(double a) { return tanh(a); }
__device__ __forceinline__ float DPow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double DPow(double a, double b) { return pow(a, b); }
__device__ __forceinline__ float DAbs(float a) { return fabsf(a); }
__device__ __forceinline__ double DAbs(double a) { return fabs(a); }

// ---------------------------------------------------------------------------
// Vector accesses.

// N elements moved as one aligned access.
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};
template <int N, typename T>
__device__ __forceinline__ Vec<T, N> LoadVec(const T* p) {
  return *reinterpret_cast<const Vec<T, N>*>(p);
}
template <int N, typename T>
__device__ __forceinline__ void StoreVec(T* p, const Vec<T, N>& v) {
  *reinterpret_cast<Vec<T, N>*>(p) = v;
}

// Elements per 16-byte access.
template <typename T>
constexpr int kVecWidth = 16 / sizeof(T) > 0 ? static_cast<int>(16 / sizeof(T)) : 1;

inline bool Aligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

// ---------------------------------------------------------------------------
// Launches.

// Threads per block.
inline constexpr int kThreads = 256;

// The device's compute stream, with the kernel's GPU made the calling
// thread's current CUDA device (launches go to the current device).
inline Status KernelStream(OpKernelContext* ctx, cudaStream_t* stream) {
  const int ordinal = GpuContext(ctx)->ordinal();
  int current = -1;
  cudaError_t err = cudaGetDevice(&current);
  if (err == cudaSuccess && current != ordinal) err = cudaSetDevice(ordinal);
  if (err != cudaSuccess) return ctx->NodeError(CudaStatus(err, "selecting the kernel's GPU"));
  *stream = ComputeStream(ctx);
  return Status::OK();
}

// Every type that lives in device memory (Cast's domain).
template <typename Fn>
bool VisitDeviceType(DataType dt, Fn&& fn) {
  switch (BaseType(dt)) {
    case DT_UINT8: fn(Tag<uint8_t>{}); return true;
    case DT_INT8: fn(Tag<int8_t>{}); return true;
    case DT_INT16: fn(Tag<int16_t>{}); return true;
    default: return VisitFloat(dt, fn);
  }
}

// The error of a GPU kernel asked for a dtype it has no code for.
inline Status UnsupportedType(const OpKernel& k, DataType dt) {
  return errors::Unimplemented(k.type_string(), " has no GPU kernel for ", DataTypeString(dt));
}

}  // namespace af::gpu
