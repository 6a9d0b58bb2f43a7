// What every CUDA kernel needs: its device's streams and a Status for a
// CUDA error. Built only with the CUDA toolkit.
#pragma once

#include <cuda_runtime.h>

#include "core/gpu/gpu_device_context.h"
#include "core/op_kernel.h"
#include "core/status.h"

namespace af::gpu {

// INTERNAL "<what>: <cudaGetErrorName>: <cudaGetErrorString>" (OK for
// cudaSuccess); out-of-memory errors become RESOURCE_EXHAUSTED.
Status CudaStatus(cudaError_t err, const char* what);

// The GPU device a kernel runs on; the kernel must be one of a GPU device
// (the registry guarantees it).
inline GpuDeviceContext* GpuContext(OpKernelContext* ctx) { return ctx->device()->gpu_context(); }
inline GpuDeviceContext* GpuContext(OpKernelConstruction* ctx) { return ctx->device()->gpu_context(); }
inline cudaStream_t ComputeStream(OpKernelContext* ctx) {
  return static_cast<cudaStream_t>(GpuContext(ctx)->compute_stream()->native());
}

// Whether the last launch on this thread failed (a bad configuration); an
// error names the kernel.
Status CheckLaunch(const char* kernel);

// Blocks for `n` elements of `threads` threads, at most what fills the
// device many times over (kernels loop with a grid stride beyond that).
inline unsigned GridFor(int64_t n, int threads = 256) {
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  if (blocks > 65535LL * 32) blocks = 65535LL * 32;
  return static_cast<unsigned>(blocks);
}

}  // namespace af::gpu

#define AF_CUDA_RETURN_IF_ERROR(EXPR, WHAT)                       \
  do {                                                            \
    cudaError_t af_cuda_err_ = (EXPR);                            \
    if (af_cuda_err_ != cudaSuccess) return ::af::gpu::CudaStatus(af_cuda_err_, WHAT); \
  } while (0)

#define OP_REQUIRES_CUDA(CTX, EXPR, WHAT)                                          \
  do {                                                                             \
    cudaError_t af_cuda_err_ = (EXPR);                                             \
    if (af_cuda_err_ != cudaSuccess) {                                             \
      (CTX)->SetStatus((CTX)->NodeError(::af::gpu::CudaStatus(af_cuda_err_, WHAT))); \
      return;                                                                      \
    }                                                                              \
  } while (0)
