// The cuBLAS handle of a GPU device: created on first use, bound to the
// device's compute stream, kept in the device context for the device's life.
// Built only with the CUDA toolkit.
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <mutex>

#include "core/op_kernel.h"
#include "core/status.h"

namespace af::gpu {

class GpuDeviceContext;

// OK for CUBLAS_STATUS_SUCCESS; otherwise INTERNAL "<what>: <status name>:
// <description>" (RESOURCE_EXHAUSTED for allocation failures,
// INVALID_ARGUMENT for CUBLAS_STATUS_INVALID_VALUE, UNIMPLEMENTED for
// CUBLAS_STATUS_NOT_SUPPORTED).
Status CublasStatus(cublasStatus_t status, const char* what);

// Whether FP32 products may use TF32 tensor cores: only when the process
// was started with ACTORFLOW_GPU_ALLOW_TF32=1 (read once). Off, float GEMMs
// and convolutions keep full FP32 precision.
bool AllowTf32();

// Makes the kernel's GPU the calling thread's current CUDA device, as CUDA
// launches, library calls and handle creation expect.
Status MakeKernelDeviceCurrent(OpKernelContext* ctx);

// The handle of one device. cuBLAS allows one handle on several threads
// as long as nobody reconfigures it; the mutex keeps every call that might
// (and the calls themselves) one at a time anyway — they only enqueue.
struct CublasResource {
  cublasHandle_t handle = nullptr;
  std::mutex mu;  // serializes use of handle: one cuBLAS call at a time
  CublasResource() = default;
  CublasResource(const CublasResource&) = delete;
  CublasResource& operator=(const CublasResource&) = delete;
  ~CublasResource();
};

// Exclusive use of a device's cuBLAS handle while it lives.
class CublasScope {
 public:
  CublasScope() = default;
  cublasHandle_t handle() const { return resource_ ? resource_->handle : nullptr; }

 private:
  friend Status CublasFor(GpuDeviceContext* device, CublasScope* out);
  std::shared_ptr<CublasResource> resource_;
  std::unique_lock<std::mutex> lock_;
};

// The handle of `device` (whose ordinal must be the current CUDA device),
// created on first use with its stream set to the compute stream.
Status CublasFor(GpuDeviceContext* device, CublasScope* out);
// Same for the device a kernel runs on (makes it current first); errors
// name the kernel's node.
Status CublasFor(OpKernelContext* ctx, CublasScope* out);

}  // namespace af::gpu

#define AF_CUBLAS_RETURN_IF_ERROR(EXPR, WHAT)                                       \
  do {                                                                              \
    const cublasStatus_t af_cublas_status_ = (EXPR);                                \
    if (af_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                 \
      return ::af::gpu::CublasStatus(af_cublas_status_, WHAT);                      \
  } while (0)

#define OP_REQUIRES_CUBLAS(CTX, EXPR, WHAT)                                          \
  do {                                                                              \
    const cublasStatus_t af_cublas_status_ = (EXPR);                                \
    if (af_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                               \
      (CTX)->SetStatus((CTX)->NodeError(::af::gpu::CublasStatus(af_cublas_status_, WHAT))); \
      return;                                                                       \
    }                                                                               \
  } while (0)
