// The cuDNN handle of a GPU device (created on first use, bound to the
// device's compute stream, kept in the device context) with the device's
// cache of convolution algorithm choices, and owners for cuDNN descriptors.
// Built only with the CUDA toolkit.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/op_kernel.h"
#include "core/status.h"
#include "core/types.h"

namespace af::gpu {

class GpuDeviceContext;

// OK for CUDNN_STATUS_SUCCESS; otherwise "<what>: <status name>" with
// cuDNN's last error message when it has one. Allocation failures are
// RESOURCE_EXHAUSTED, unsupported configurations UNIMPLEMENTED, bad
// parameters INVALID_ARGUMENT, the rest INTERNAL.
Status CudnnStatus(cudnnStatus_t status, const char* what);

// The cuDNN element type of a tensor dtype (float, double, half, bfloat16);
// UNIMPLEMENTED for the others.
Status CudnnDataTypeOf(DataType dtype, cudnnDataType_t* out);

// One convolution's algorithm as chosen for one shape, reused for every
// later call with that shape on the device.
struct ConvAlgoChoice {
  int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
  size_t workspace_bytes = 0;
};

// A device's handle and what it remembers. cuDNN forbids using one handle
// from two threads at once, so every use holds `mu` (CudnnScope does).
struct CudnnResource {
  cudnnHandle_t handle = nullptr;
  std::mutex mu;  // guards handle (one user at a time) and conv_algos
  // Keyed by the pass and every size of the convolution; guarded by mu.
  std::map<std::string, ConvAlgoChoice> conv_algos;
  CudnnResource() = default;
  CudnnResource(const CudnnResource&) = delete;
  CudnnResource& operator=(const CudnnResource&) = delete;
  ~CudnnResource();
};

// Exclusive use of a device's cuDNN handle (and its caches) while it lives.
class CudnnScope {
 public:
  CudnnScope() = default;
  cudnnHandle_t handle() const { return resource_ ? resource_->handle : nullptr; }
  CudnnResource* resource() const { return resource_.get(); }

 private:
  friend Status CudnnFor(GpuDeviceContext* device, CudnnScope* out);
  std::shared_ptr<CudnnResource> resource_;
  std::unique_lock<std::mutex> lock_;
};

// The handle of `device` (whose ordinal must be the current CUDA device),
// created on first use with its stream set to the compute stream.
Status CudnnFor(GpuDeviceContext* device, CudnnScope* out);
// Same for the device a kernel runs on (made current first); errors name
// the kernel's node.
Status CudnnFor(OpKernelContext* ctx, CudnnScope* out);

// Whether convolutions pick their algorithm by timing every candidate once
// per shape (cudnnFind*AlgorithmEx, the default; blocks the host on that
// first call) or from cuDNN's heuristics (cudnnGet*Algorithm_v7, never
// blocks): ACTORFLOW_CUDNN_AUTOTUNE=0 selects the heuristics. Read once.
bool CudnnAutotune();

// Owns one cuDNN descriptor.
template <typename Handle, cudnnStatus_t (*kCreate)(Handle*), cudnnStatus_t (*kDestroy)(Handle)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  ~CudnnDescriptor() {
    if (handle_ != nullptr) (void)kDestroy(handle_);
  }
  Status Init(const char* what) {
    if (handle_ != nullptr) return Status::OK();
    return CudnnStatus(kCreate(&handle_), what);
  }
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

using CudnnTensorDescriptor =
    CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                    cudnnDestroyTensorDescriptor>;
using CudnnFilterDescriptor =
    CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                    cudnnDestroyFilterDescriptor>;
using CudnnConvolutionDescriptor =
    CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                    cudnnDestroyConvolutionDescriptor>;

}  // namespace af::gpu

#define AF_CUDNN_RETURN_IF_ERROR(EXPR, WHAT)                                        \
  do {                                                                              \
    const cudnnStatus_t af_cudnn_status_ = (EXPR);                                  \
    if (af_cudnn_status_ != CUDNN_STATUS_SUCCESS)                                   \
      return ::af::gpu::CudnnStatus(af_cudnn_status_, WHAT);                        \
  } while (0)

#define OP_REQUIRES_CUDNN(CTX, EXPR, WHAT)                                           \
  do {                                                                              \
    const cudnnStatus_t af_cudnn_status_ = (EXPR);                                  \
    if (af_cudnn_status_ != CUDNN_STATUS_SUCCESS) {                                 \
      (CTX)->SetStatus((CTX)->NodeError(::af::gpu::CudnnStatus(af_cudnn_status_, WHAT))); \
      return;                                                                       \
    }                                                                               \
  } while (0)
