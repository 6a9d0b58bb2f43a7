// MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad on CUDA GPUs, for float,
// double, half and bfloat16, NHWC and NCHW, VALID, SAME and (MaxPool)
// EXPLICIT padding.
//
// These run our own kernels (pool_kernels.cu) rather than cuDNN's pooling:
// cuDNN pads both sides of a window dimension equally, while TensorFlow's
// SAME padding is often one-sided (a 3x3 stride-2 pool of an even-sized
// input pads only after), and TensorFlow's max-pool gradient goes to the
// first maximum of each window, a tie rule cuDNN does not promise. The
// kernels follow the CPU kernels' rules exactly, deterministically.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/op_kernel.h"
#include "core/tensor.h"
#include "core/window_geometry.h"
#include "kernels/gpu/cuda/cublas_handle.h"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/pool_kernels.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/nn/pool_dims.h"

namespace af::gpu {

namespace {

Status PoolElemOf(const char* op, DataType dtype, PoolElem* out) {
  switch (BaseType(dtype)) {
    case DT_FLOAT:
      *out = PoolElem::kFloat;
      return Status::OK();
    case DT_DOUBLE:
      *out = PoolElem::kDouble;
      return Status::OK();
    case DT_HALF:
      *out = PoolElem::kHalf;
      return Status::OK();
    case DT_BFLOAT16:
      *out = PoolElem::kBFloat16;
      return Status::OK();
    default:
      return errors::Unimplemented(op, " on a CUDA GPU supports float, double, half and "
                                   "bfloat16, not ",
                                   DataTypeString(dtype));
  }
}

PoolGeometry GeometryOf(const Pool2DDims& d) {
  PoolGeometry g;
  g.batch = d.batch;
  g.in_h = d.in_h;
  g.in_w = d.in_w;
  g.depth = d.depth;
  g.out_h = d.out_h;
  g.out_w = d.out_w;
  g.ksize_h = d.ksize_h;
  g.ksize_w = d.ksize_w;
  g.stride_h = d.stride_h;
  g.stride_w = d.stride_w;
  g.pad_top = d.pad_top;
  g.pad_left = d.pad_left;
  g.nhwc = d.format == TensorFormat::kNHWC;
  return g;
}

// The first input's dtype, checked once at construction.
class CudaPoolBase : public OpKernel {
 public:
  CudaPoolBase(OpKernelConstruction* ctx, int data_input) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParsePool2DAttrs(ctx->def(), &window_));
    const DataType dtype =
        data_input < ctx->num_inputs() ? ctx->input_types()[data_input] : DT_INVALID;
    OP_REQUIRES_OK(ctx, PoolElemOf(ctx->def().op().c_str(), dtype, &elem_));
  }

 protected:
  Window2D window_;
  PoolElem elem_ = PoolElem::kFloat;
};

class CudaMaxPoolOp : public CudaPoolBase {
 public:
  explicit CudaMaxPoolOp(OpKernelConstruction* ctx) : CudaPoolBase(ctx, 0) {}

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PreparePool2D(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, ctx->NodeError(MakeKernelDeviceCurrent(ctx)));
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_CUDA(ctx,
                     LaunchMaxPool(ComputeStream(ctx), elem_, GeometryOf(d), input.raw_data(),
                                   out->raw_data()),
                     "MaxPool kernel launch");
  }
};

class CudaMaxPoolGradOp : public CudaPoolBase {
 public:
  explicit CudaMaxPoolGradOp(OpKernelConstruction* ctx) : CudaPoolBase(ctx, 0) {}

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareMaxPoolGrad(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, ctx->NodeError(MakeKernelDeviceCurrent(ctx)));
    const Tensor& orig_input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    // One int64 per pooled element: the input offset its gradient goes to.
    // Device scratch is allocated as bytes (int64 tensors live on the host).
    const TensorShape pooled = d.OutputShape();
    Tensor argmax;
    int64_t* argmax_ptr = nullptr;
    if (pooled.num_elements() > 0) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(
                              DT_UINT8,
                              TensorShape{pooled.num_elements() *
                                          static_cast<int64_t>(sizeof(int64_t))},
                              &argmax));
      argmax_ptr = static_cast<int64_t*>(argmax.raw_data());
    }
    OP_REQUIRES_CUDA(ctx,
                     LaunchMaxPoolGrad(ComputeStream(ctx), elem_, GeometryOf(d),
                                       orig_input.raw_data(), grad.raw_data(), argmax_ptr,
                                       out->raw_data()),
                     "MaxPoolGrad kernel launch");
  }
};

class CudaAvgPoolOp : public CudaPoolBase {
 public:
  explicit CudaAvgPoolOp(OpKernelConstruction* ctx) : CudaPoolBase(ctx, 0) {}

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PreparePool2D(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, ctx->NodeError(MakeKernelDeviceCurrent(ctx)));
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_CUDA(ctx,
                     LaunchAvgPool(ComputeStream(ctx), elem_, GeometryOf(d), input.raw_data(),
                                   out->raw_data()),
                     "AvgPool kernel launch");
  }
};

class CudaAvgPoolGradOp : public CudaPoolBase {
 public:
  explicit CudaAvgPoolGradOp(OpKernelConstruction* ctx) : CudaPoolBase(ctx, 1) {}

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareAvgPoolGrad(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, ctx->NodeError(MakeKernelDeviceCurrent(ctx)));
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES_CUDA(ctx,
                     LaunchAvgPoolGrad(ComputeStream(ctx), elem_, GeometryOf(d), grad.raw_data(),
                                       out->raw_data()),
                     "AvgPoolGrad kernel launch");
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("MaxPool", CudaMaxPoolOp);
REGISTER_CUDA_KERNEL("MaxPoolGrad", CudaMaxPoolGradOp);
REGISTER_CUDA_KERNEL("AvgPool", CudaAvgPoolOp);
REGISTER_CUDA_KERNEL("AvgPoolGrad", CudaAvgPoolGradOp);

}  // namespace af::gpu
