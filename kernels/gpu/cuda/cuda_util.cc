#include "kernels/gpu/cuda/cuda_util.h"

namespace af::gpu {

Status CudaStatus(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::OK();
  if (err == cudaErrorMemoryAllocation) {
    return errors::ResourceExhausted(what, ": ", cudaGetErrorName(err), ": ",
                                     cudaGetErrorString(err));
  }
  return errors::Internal(what, ": ", cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}

Status CheckLaunch(const char* kernel) {
  return CudaStatus(cudaGetLastError(), kernel);
}

}  // namespace af::gpu
