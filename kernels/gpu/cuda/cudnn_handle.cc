#include "kernels/gpu/cuda/cudnn_handle.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/gpu/gpu_device_context.h"
#include "kernels/gpu/cuda/cublas_handle.h"
#include "kernels/gpu/cuda/cuda_util.h"

namespace af::gpu {

Status CudnnStatus(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return Status::OK();
  std::string message = std::string(what) + ": " + cudnnGetErrorString(status);
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  if (detail[0] != '\0') message += std::string(" (") + detail + ")";
  switch (CUDNN_STATUS_CATEGORY(static_cast<int>(status))) {
    case CUDNN_STATUS_BAD_PARAM:
      return errors::InvalidArgument(message);
    case CUDNN_STATUS_NOT_SUPPORTED:
      return errors::Unimplemented(message);
    default:
      break;
  }
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    return errors::ResourceExhausted(message);
  return errors::Internal(message);
}

Status CudnnDataTypeOf(DataType dtype, cudnnDataType_t* out) {
  switch (BaseType(dtype)) {
    case DT_FLOAT:
      *out = CUDNN_DATA_FLOAT;
      return Status::OK();
    case DT_DOUBLE:
      *out = CUDNN_DATA_DOUBLE;
      return Status::OK();
    case DT_HALF:
      *out = CUDNN_DATA_HALF;
      return Status::OK();
    case DT_BFLOAT16:
      *out = CUDNN_DATA_BFLOAT16;
      return Status::OK();
    default:
      return errors::Unimplemented("cuDNN has no element type for ", DataTypeString(dtype));
  }
}

CudnnResource::~CudnnResource() {
  if (handle != nullptr) (void)cudnnDestroy(handle);
}

bool CudnnAutotune() {
  static const bool autotune = [] {
    const char* v = std::getenv("ACTORFLOW_CUDNN_AUTOTUNE");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return autotune;
}

Status CudnnFor(GpuDeviceContext* device, CudnnScope* out) {
  if (device == nullptr) return errors::FailedPrecondition("cuDNN needs a GPU device");
  std::shared_ptr<void> slot;
  AF_RETURN_IF_ERROR(device->GetOrCreateResource(
      "actorflow.cudnn",
      [device](std::shared_ptr<void>* made) -> Status {
        void* native = device->compute_stream()->native();
        if (native == nullptr)
          return errors::FailedPrecondition("GPU ", device->ordinal(),
                                            " has no CUDA compute stream (emulated?)");
        auto resource = std::make_shared<CudnnResource>();
        AF_CUDNN_RETURN_IF_ERROR(cudnnCreate(&resource->handle), "cudnnCreate");
        AF_CUDNN_RETURN_IF_ERROR(
            cudnnSetStream(resource->handle, static_cast<cudaStream_t>(native)),
            "cudnnSetStream");
        *made = std::move(resource);
        return Status::OK();
      },
      &slot));
  out->lock_ = std::unique_lock<std::mutex>();
  out->resource_ = std::static_pointer_cast<CudnnResource>(slot);
  out->lock_ = std::unique_lock<std::mutex>(out->resource_->mu);
  return Status::OK();
}

Status CudnnFor(OpKernelContext* ctx, CudnnScope* out) {
  Status s = MakeKernelDeviceCurrent(ctx);
  if (s.ok()) s = CudnnFor(GpuContext(ctx), out);
  return s.ok() ? s : ctx->NodeError(s);
}

}  // namespace af::gpu
