#include "kernels/gpu/cuda/cublas_handle.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "core/gpu/gpu_device_context.h"
#include "kernels/gpu/cuda/cuda_util.h"

namespace af::gpu {

Status CublasStatus(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::OK();
  const char* name = cublasGetStatusName(status);
  const char* text = cublasGetStatusString(status);
  switch (status) {
    case CUBLAS_STATUS_ALLOC_FAILED:
      return errors::ResourceExhausted(what, ": ", name, ": ", text);
    case CUBLAS_STATUS_INVALID_VALUE:
      return errors::InvalidArgument(what, ": ", name, ": ", text);
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return errors::Unimplemented(what, ": ", name, ": ", text);
    default:
      return errors::Internal(what, ": ", name, ": ", text);
  }
}

bool AllowTf32() {
  static const bool allow = [] {
    const char* v = std::getenv("ACTORFLOW_GPU_ALLOW_TF32");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return allow;
}

Status MakeKernelDeviceCurrent(OpKernelContext* ctx) {
  GpuDeviceContext* device = GpuContext(ctx);
  if (device == nullptr)
    return errors::FailedPrecondition("a CUDA kernel runs on a device without a GPU context");
  int current = -1;
  AF_CUDA_RETURN_IF_ERROR(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device->ordinal())
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device->ordinal()), "cudaSetDevice");
  return Status::OK();
}

CublasResource::~CublasResource() {
  if (handle != nullptr) (void)cublasDestroy(handle);
}

Status CublasFor(GpuDeviceContext* device, CublasScope* out) {
  if (device == nullptr) return errors::FailedPrecondition("cuBLAS needs a GPU device");
  std::shared_ptr<void> slot;
  AF_RETURN_IF_ERROR(device->GetOrCreateResource(
      "actorflow.cublas",
      [device](std::shared_ptr<void>* made) -> Status {
        void* native = device->compute_stream()->native();
        if (native == nullptr)
          return errors::FailedPrecondition("GPU ", device->ordinal(),
                                            " has no CUDA compute stream (emulated?)");
        auto resource = std::make_shared<CublasResource>();
        AF_CUBLAS_RETURN_IF_ERROR(cublasCreate(&resource->handle), "cublasCreate");
        AF_CUBLAS_RETURN_IF_ERROR(
            cublasSetStream(resource->handle, static_cast<cudaStream_t>(native)),
            "cublasSetStream");
        // Precision comes from each call's compute type (FP32, or TF32 only
        // when asked for); the handle's mode stays the default.
        AF_CUBLAS_RETURN_IF_ERROR(cublasSetMathMode(resource->handle, CUBLAS_DEFAULT_MATH),
                                  "cublasSetMathMode");
        AF_CUBLAS_RETURN_IF_ERROR(cublasSetPointerMode(resource->handle, CUBLAS_POINTER_MODE_HOST),
                                  "cublasSetPointerMode");
        *made = std::move(resource);
        return Status::OK();
      },
      &slot));
  out->lock_ = std::unique_lock<std::mutex>();
  out->resource_ = std::static_pointer_cast<CublasResource>(slot);
  out->lock_ = std::unique_lock<std::mutex>(out->resource_->mu);
  return Status::OK();
}

Status CublasFor(OpKernelContext* ctx, CublasScope* out) {
  Status s = MakeKernelDeviceCurrent(ctx);
  if (s.ok()) s = CublasFor(GpuContext(ctx), out);
  return s.ok() ? s : ctx->NodeError(s);
}

}  // namespace af::gpu
