// The matrix-product, convolution, pooling and softmax ops that GPU devices
// run, with the types their CUDA kernels (kernels/gpu/cuda/matmul_ops.cc,
// conv_ops.cc, pool_ops.cc, softmax_ops.cc) support. Plain C++, compiled
// with or without the CUDA toolkit, so that placement sees the same GPU ops
// either way.
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

const bool registered = [] {
  const DataTypeVector gemm_types = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  RegisterGpuKernel(KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint("T", gemm_types));
  RegisterGpuKernel(
      KernelDefBuilder("BatchMatMul").Device(DEVICE_GPU).TypeConstraint("T", gemm_types));
  RegisterGpuKernel(
      KernelDefBuilder("BatchMatMulV2").Device(DEVICE_GPU).TypeConstraint("T", gemm_types));

  // cuDNN convolutions: float (FP32 math) and half (FP32 accumulation).
  const DataTypeVector conv_types = {DT_FLOAT, DT_HALF};
  RegisterGpuKernel(KernelDefBuilder("Conv2D").Device(DEVICE_GPU).TypeConstraint("T", conv_types));
  RegisterGpuKernel(KernelDefBuilder("Conv2DBackpropInput")
                        .Device(DEVICE_GPU)
                        .TypeConstraint("T", conv_types)
                        .HostMemory("input_sizes"));
  RegisterGpuKernel(KernelDefBuilder("Conv2DBackpropFilter")
                        .Device(DEVICE_GPU)
                        .TypeConstraint("T", conv_types)
                        .HostMemory("filter_sizes"));

  const DataTypeVector pool_types = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  RegisterGpuKernel(KernelDefBuilder("MaxPool").Device(DEVICE_GPU).TypeConstraint("T", pool_types));
  RegisterGpuKernel(
      KernelDefBuilder("MaxPoolGrad").Device(DEVICE_GPU).TypeConstraint("T", pool_types));
  RegisterGpuKernel(KernelDefBuilder("AvgPool").Device(DEVICE_GPU).TypeConstraint("T", pool_types));
  RegisterGpuKernel(KernelDefBuilder("AvgPoolGrad")
                        .Device(DEVICE_GPU)
                        .TypeConstraint("T", pool_types)
                        .HostMemory("orig_input_shape"));

  const DataTypeVector softmax_types = {DT_FLOAT, DT_DOUBLE, DT_HALF};
  RegisterGpuKernel(
      KernelDefBuilder("Softmax").Device(DEVICE_GPU).TypeConstraint("T", softmax_types));
  RegisterGpuKernel(
      KernelDefBuilder("LogSoftmax").Device(DEVICE_GPU).TypeConstraint("T", softmax_types));
  return true;
}();

}  // namespace
}  // namespace af::gpu
