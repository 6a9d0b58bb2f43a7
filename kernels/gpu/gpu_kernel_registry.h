// Which ops run on GPU devices, declared once for both GPU backends.
//
// An op enters the GPU's kernel registry through one line in
// kernels/gpu/gpu_ops.cc (always compiled, so placement sees the same set
// of GPU ops with or without the CUDA toolkit). What a GPU kernel of that
// op is depends on the device it is created for:
//  - an emulated GPU runs the op's CPU kernel as a kernel on the emulated
//    compute stream (kernels/gpu/emulated_gpu_kernel.h);
//  - a CUDA GPU runs the class registered for the op with
//    REGISTER_CUDA_KERNEL in kernels/gpu/cuda/ (built only with CUDA).
// Ops whose kernels touch no float data (Reshape, Shape, Identity, int32
// shape arithmetic) are "host kernels": the CPU kernel itself runs on the
// GPU device, since integer tensors live in host memory there.
#pragma once

#include <string>

#include "core/kernel_registry.h"

namespace af::gpu {

// Registers `builder` (device GPU) so that its kernel follows the rules
// above.
void RegisterGpuKernel(const KernelDefBuilder& builder);
// Registers `builder` (device GPU) to run the op's CPU kernel as it is.
void RegisterGpuHostKernel(const KernelDefBuilder& builder);

// The CUDA kernel for `op` (any type: the class dispatches on its attrs).
void RegisterCudaKernel(const std::string& op, KernelFactory factory);
// nullptr when no CUDA kernel was registered for `op`.
const KernelFactory* FindCudaKernel(const std::string& op);

template <typename K>
struct CudaKernelReceiver {
  explicit CudaKernelReceiver(const char* op) {
    RegisterCudaKernel(op, [](OpKernelConstruction* ctx) -> OpKernel* { return new K(ctx); });
  }
};

}  // namespace af::gpu

#define AF_CUDA_KERNEL_CONCAT_INNER(a, b) a##b
#define AF_CUDA_KERNEL_CONCAT(a, b) AF_CUDA_KERNEL_CONCAT_INNER(a, b)
// REGISTER_CUDA_KERNEL("MatMul", CudaMatMulOp);
#define REGISTER_CUDA_KERNEL(OP, ...)                                            \
  static ::af::gpu::CudaKernelReceiver<__VA_ARGS__> AF_CUDA_KERNEL_CONCAT( \
      af_cuda_kernel_receiver_, __COUNTER__)(OP)
