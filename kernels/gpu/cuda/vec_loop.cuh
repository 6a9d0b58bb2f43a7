// The vectorized element-wise loop shared by the element-wise kernels, and
// its two plainest bodies (one input, two inputs of the same size).
#pragma once

#include <cstdint>

#include "kernels/gpu/cuda/cuda_types.cuh"

namespace af::gpu {

// The vectorized element-wise loop: body.Apply<N>(e) handles elements
// [e, e + N). Vectors first (grid-stride), then the < N tail elements.

template <int N, typename Body>
__global__ void __launch_bounds__(kThreads) VecLoopKernel(int64_t n, Body body) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nvec = n / N;
  for (int64_t i = tid; i < nvec; i += stride) body.template Apply<N>(i * N);
  if constexpr (N > 1) {
    for (int64_t e = nvec * N + tid; e < n; e += stride) body.template Apply<1>(e);
  }
}

// Runs `body` over n elements, N at a time when `vectorize`.
template <int N, typename Body>
Status LaunchVecLoop(cudaStream_t stream, int64_t n, bool vectorize, const Body& body,
                     const char* name) {
  if (n <= 0) return Status::OK();
  if (N > 1 && vectorize) {
    const int64_t units = n / N > 0 ? n / N : 1;
    VecLoopKernel<N, Body><<<GridFor(units, kThreads), kThreads, 0, stream>>>(n, body);
  } else {
    VecLoopKernel<1, Body><<<GridFor(n, kThreads), kThreads, 0, stream>>>(n, body);
  }
  return CheckLaunch(name);
}

template <typename T, typename F>
struct UnaryBody {
  const T* x;
  T* y;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Vec<T, N> a = LoadVec<N>(x + e);
    Vec<T, N> r;
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k])));
    StoreVec<N>(y + e, r);
  }
};

// z = f(x, y), both full.
template <typename T, typename F>
struct BinaryBody {
  const T* x;
  const T* y;
  T* z;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Vec<T, N> a = LoadVec<N>(x + e);
    const Vec<T, N> b = LoadVec<N>(y + e);
    Vec<T, N> r;
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k]), ToAcc(b.v[k])));
    StoreVec<N>(z + e, r);
  }
};

}  // namespace af::gpu
