#include "kernels/gpu/cuda/filter_layout.h"

#include <cstdint>

#include "kernels/gpu/cuda/cuda_types.cuh"

namespace af::gpu {

namespace {

struct Dims4 {
  int64_t d[4];
};

// `src_stride.d[k]` is the step in `in` for one step along out's axis k.
template <typename E>
__global__ void Permute4DKernel(const E* __restrict__ in, E* __restrict__ out, Dims4 out_dims,
                                Dims4 src_stride, int64_t n) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    int64_t rest = i, src = 0;
    for (int k = 3; k >= 0; --k) {
      const int64_t c = rest % out_dims.d[k];
      rest /= out_dims.d[k];
      src += c * src_stride.d[k];
    }
    out[i] = in[src];
  }
}

template <typename E>
__global__ void Shift4DKernel(const E* __restrict__ in, Dims4 in_dims, E* __restrict__ out,
                              Dims4 out_dims, Dims4 offset, int64_t n) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    int64_t rest = i, src = 0, scale = 1;
    bool inside = true;
    for (int k = 3; k >= 0; --k) {
      const int64_t c = rest % out_dims.d[k] - offset.d[k];
      rest /= out_dims.d[k];
      inside = inside && c >= 0 && c < in_dims.d[k];
      src += c * scale;
      scale *= in_dims.d[k];
    }
    out[i] = inside ? in[src] : E(0);
  }
}

template <typename E>
cudaError_t Permute(cudaStream_t stream, const void* in, const int64_t in_dims[4],
                    const int perm[4], void* out) {
  int64_t in_stride[4];
  in_stride[3] = 1;
  for (int k = 2; k >= 0; --k) in_stride[k] = in_stride[k + 1] * in_dims[k + 1];
  Dims4 out_dims, src_stride;
  int64_t n = 1;
  for (int k = 0; k < 4; ++k) {
    if (perm[k] < 0 || perm[k] > 3) return cudaErrorInvalidValue;
    out_dims.d[k] = in_dims[perm[k]];
    src_stride.d[k] = in_stride[perm[k]];
    n *= out_dims.d[k];
  }
  if (n == 0) return cudaSuccess;
  Permute4DKernel<E><<<GridFor(n, kThreads), kThreads, 0, stream>>>(
      static_cast<const E*>(in), static_cast<E*>(out), out_dims, src_stride, n);
  return cudaGetLastError();
}

template <typename E>
cudaError_t Shift(cudaStream_t stream, const void* in, const int64_t in_dims[4], void* out,
                  const int64_t out_dims[4], const int64_t offset[4]) {
  Dims4 in_d, out_d, off;
  int64_t n = 1;
  for (int k = 0; k < 4; ++k) {
    in_d.d[k] = in_dims[k];
    out_d.d[k] = out_dims[k];
    off.d[k] = offset[k];
    n *= out_dims[k];
  }
  if (n == 0) return cudaSuccess;
  Shift4DKernel<E><<<GridFor(n, kThreads), kThreads, 0, stream>>>(
      static_cast<const E*>(in), in_d, static_cast<E*>(out), out_d, off, n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPermute4D(cudaStream_t stream, int elem_bytes, const void* in,
                            const int64_t in_dims[4], const int perm[4], void* out) {
  switch (elem_bytes) {
    case 1:
      return Permute<uint8_t>(stream, in, in_dims, perm, out);
    case 2:
      return Permute<uint16_t>(stream, in, in_dims, perm, out);
    case 4:
      return Permute<uint32_t>(stream, in, in_dims, perm, out);
    case 8:
      return Permute<uint64_t>(stream, in, in_dims, perm, out);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchShift4D(cudaStream_t stream, int elem_bytes, const void* in,
                          const int64_t in_dims[4], void* out, const int64_t out_dims[4],
                          const int64_t offset[4]) {
  switch (elem_bytes) {
    case 1:
      return Shift<uint8_t>(stream, in, in_dims, out, out_dims, offset);
    case 2:
      return Shift<uint16_t>(stream, in, in_dims, out, out_dims, offset);
    case 4:
      return Shift<uint32_t>(stream, in, in_dims, out, out_dims, offset);
    case 8:
      return Shift<uint64_t>(stream, in, in_dims, out, out_dims, offset);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace af::gpu
