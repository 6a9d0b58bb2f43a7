// The element-wise, reduction, loss, optimizer, data-movement and random ops
// that GPU devices run, with the types their CUDA kernels support
// (kernels/gpu/cuda/cwise_*_ops.cu, bias_ops.cu, reduction_ops.cu,
// xent_ops.cu, training_ops.cu, fill_transpose_ops.cu,
// concat_slice_pad_ops.cu, random_ops.cu). Plain C++,
// compiled with or without the CUDA toolkit, so that placement sees the
// same GPU ops either way. Integer versions of some of these ops (shape
// arithmetic) are host kernels: kernels/gpu/gpu_host_ops.cc.
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

const bool registered = [] {
  // Floating types: half and bfloat16 compute in float.
  const DataTypeVector kFloat = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  // Every type that lives in device memory (moved as raw bits).
  const DataTypeVector kDevice = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16,
                                  DT_UINT8, DT_INT8,   DT_INT16};
  const DataTypeVector kFloatOrDouble = {DT_FLOAT, DT_DOUBLE};
  auto gpu = [](const char* op) { return KernelDefBuilder(op).Device(DEVICE_GPU); };

  // Broadcasting binary arithmetic.
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum",
                         "SquaredDifference", "Pow"}) {
    RegisterGpuKernel(gpu(op).TypeConstraint("T", kFloat));
  }
  // Unary math and activations.
  for (const char* op : {"Neg", "Square", "Abs", "Sign", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p",
                         "Tanh", "Sigmoid", "Reciprocal", "Inv", "Relu", "Relu6", "Elu", "Selu",
                         "Softplus"}) {
    RegisterGpuKernel(gpu(op).TypeConstraint("T", kFloat));
  }
  // Gradients of the above.
  for (const char* op : {"SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad",
                         "InvGrad", "ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad",
                         "SoftplusGrad"}) {
    RegisterGpuKernel(gpu(op).TypeConstraint("T", kFloat));
  }
  RegisterGpuKernel(gpu("AddN").TypeConstraint("T", kFloat));
  RegisterGpuKernel(gpu("Cast").TypeConstraint("SrcT", kDevice).TypeConstraint("DstT", kDevice));

  RegisterGpuKernel(gpu("BiasAdd").TypeConstraint("T", kFloat));
  RegisterGpuKernel(gpu("BiasAddGrad").TypeConstraint("T", kFloat));

  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    RegisterGpuKernel(gpu(op).TypeConstraint("T", kFloat).HostMemory("reduction_indices"));
  }

  RegisterGpuKernel(gpu("SoftmaxCrossEntropyWithLogits").TypeConstraint("T", kFloat));
  RegisterGpuKernel(gpu("SparseSoftmaxCrossEntropyWithLogits")
                        .TypeConstraint("T", kFloat)
                        .TypeConstraint("Tlabels", {DT_INT32, DT_INT64})
                        .HostMemory("labels"));

  for (const char* op :
       {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyRMSProp"}) {
    RegisterGpuKernel(gpu(op).TypeConstraint("T", kFloatOrDouble));
  }

  // Data movement. (Const is kernels/gpu/gpu_state_ops.cc.)
  RegisterGpuKernel(gpu("Fill").TypeConstraint("T", kDevice).HostMemory("dims"));
  RegisterGpuKernel(gpu("ZerosLike").TypeConstraint("T", kDevice));
  RegisterGpuKernel(gpu("OnesLike").TypeConstraint("T", kDevice));
  RegisterGpuKernel(gpu("Transpose").TypeConstraint("T", kDevice).HostMemory("perm"));
  RegisterGpuKernel(gpu("Concat").TypeConstraint("T", kDevice).HostMemory("concat_dim"));
  RegisterGpuKernel(gpu("ConcatV2").TypeConstraint("T", kDevice).HostMemory("axis"));
  RegisterGpuKernel(
      gpu("Slice").TypeConstraint("T", kDevice).HostMemory("begin").HostMemory("size"));
  RegisterGpuKernel(gpu("Pad").TypeConstraint("T", kDevice).HostMemory("paddings"));
  RegisterGpuKernel(gpu("PadV2").TypeConstraint("T", kDevice).HostMemory("paddings"));
  RegisterGpuKernel(gpu("Tile").TypeConstraint("T", kDevice).HostMemory("multiples"));
  RegisterGpuKernel(gpu("BroadcastTo").TypeConstraint("T", kDevice).HostMemory("shape"));

  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    RegisterGpuKernel(gpu(op).TypeConstraint("dtype", kFloat).HostMemory("shape"));
  }
  return true;
}();

}  // namespace
}  // namespace af::gpu
