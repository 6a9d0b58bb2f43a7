// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CUDA GPUs through
// cuDNN's convolution API (cudnnConvolutionForward / BackwardData /
// BackwardFilter), for float and half, NHWC (TensorFlow's default) and NCHW.
//
// Layouts. Data tensors go to cuDNN as they are: a CUDNN_TENSOR_NHWC (or
// NCHW) descriptor describes TensorFlow's layout exactly. Filters do not:
// TensorFlow keeps them HWIO ([rows, cols, in, out]) and cuDNN only knows
// KRSC ([out, rows, cols, in], its "NHWC" filter format, used with NHWC
// data) and KCRS ([out, in, rows, cols], with NCHW data). The forward and
// input-gradient kernels transpose the filter into a temporary; the
// filter-gradient kernel lets cuDNN write KRSC/KCRS into a temporary and
// transposes that into the HWIO output.
//
// The cuDNN side of each pass (padding, algorithm choice, workspace) is
// kernels/gpu/cuda/conv_pass.h.
#include "core/op_kernel.h"
#include "core/tensor.h"
#include "kernels/gpu/cuda/conv_pass.h"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/cudnn_handle.h"
#include "kernels/gpu/cuda/filter_layout.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/nn/conv_dims.h"

namespace af::gpu {
namespace {

// Whether the convolution is left to run. Otherwise the output is empty, or
// a sum of no terms that this sets to zeros (an error goes on ctx).
bool ConvolutionLeft(OpKernelContext* ctx, const Conv2DCall& call) {
  if (call.work == Conv2DCall::Work::kZeros) {
    const Status s = ZeroOutput(ctx, call.out);
    if (!s.ok()) ctx->SetStatus(ctx->NodeError(s));
  }
  return call.work == Conv2DCall::Work::kCompute;
}

class CudaConv2DOp : public OpKernel {
 public:
  explicit CudaConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
    dtype_ = ctx->num_inputs() > 0 ? ctx->input_types()[0] : DT_INVALID;
    OP_REQUIRES_OK(ctx, CheckType("Conv2D", dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DCall call;
    OP_REQUIRES_OK(ctx, PrepareConv2D(ctx, window_, &call));
    Tensor* out = call.out;
    if (!ConvolutionLeft(ctx, call)) return;
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    ConvSetup s;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetUpConv("fwd", call.dims, dtype_, &s)));
    Tensor filter_tmp, input_tmp;
    ConvBuffers b;
    OP_REQUIRES_OK(ctx, ctx->NodeError(FilterToCudnn(ctx, s, filter, &filter_tmp)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(PaddedInput(ctx, s, input, &input_tmp, &b.x)));
    b.w = filter_tmp.raw_data();
    b.y = out->raw_data();
    OP_REQUIRES_OK(ctx, ctx->NodeError(RunConvPass(ConvPass::kForward, ctx, &cudnn, &s, b)));
  }

 private:
  Window2D window_;
  DataType dtype_ = DT_FLOAT;
};

class CudaConv2DBackpropInputOp : public OpKernel {
 public:
  explicit CudaConv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
    dtype_ = ctx->num_inputs() > 1 ? ctx->input_types()[1] : DT_INVALID;
    OP_REQUIRES_OK(ctx, CheckType(kOp, dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DCall call;
    OP_REQUIRES_OK(ctx, PrepareConv2DBackpropInput(ctx, window_, &call));
    Tensor* out = call.out;
    if (!ConvolutionLeft(ctx, call)) return;
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    ConvSetup s;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetUpConv("bwd_data", call.dims, dtype_, &s)));
    Tensor filter_tmp, grad_tmp;
    ConvBuffers b;
    OP_REQUIRES_OK(ctx, ctx->NodeError(FilterToCudnn(ctx, s, filter, &filter_tmp)));
    b.w = filter_tmp.raw_data();
    b.y = out_backprop.raw_data();
    if (s.explicit_pad()) {
      // The gradient of the padded input; its interior is the answer.
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(s.dtype, s.PaddedInputShape(), &grad_tmp));
      b.x = grad_tmp.raw_data();
    } else {
      b.x = out->raw_data();
    }
    OP_REQUIRES_OK(ctx, ctx->NodeError(RunConvPass(ConvPass::kBackwardData, ctx, &cudnn, &s, b)));
    if (s.explicit_pad()) {
      int64_t padded[4], dims[4], offset[4];
      s.PaddedInputDims(padded);
      s.InputDims(dims);
      s.PadOffset(offset, -1);
      OP_REQUIRES_CUDA(ctx,
                       LaunchShift4D(ComputeStream(ctx), s.elem_bytes, grad_tmp.raw_data(),
                                     padded, out->raw_data(), dims, offset),
                       "Conv2DBackpropInput: cropping the padded input gradient");
    }
  }

 private:
  static constexpr const char* kOp = "Conv2DBackpropInput";
  Window2D window_;
  DataType dtype_ = DT_FLOAT;
};

class CudaConv2DBackpropFilterOp : public OpKernel {
 public:
  explicit CudaConv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
    dtype_ = ctx->num_inputs() > 0 ? ctx->input_types()[0] : DT_INVALID;
    OP_REQUIRES_OK(ctx, CheckType(kOp, dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DCall call;
    OP_REQUIRES_OK(ctx, PrepareConv2DBackpropFilter(ctx, window_, &call));
    Tensor* out = call.out;
    if (!ConvolutionLeft(ctx, call)) return;
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    ConvSetup s;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetUpConv("bwd_filter", call.dims, dtype_, &s)));
    Tensor input_tmp, grad_tmp;
    ConvBuffers b;
    OP_REQUIRES_OK(ctx, ctx->NodeError(PaddedInput(ctx, s, input, &input_tmp, &b.x)));
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(s.dtype, s.CudnnFilterShape(), &grad_tmp));
    b.w = grad_tmp.raw_data();
    b.y = out_backprop.raw_data();
    OP_REQUIRES_OK(ctx, ctx->NodeError(RunConvPass(ConvPass::kBackwardFilter, ctx, &cudnn, &s, b)));
    const TensorShape cudnn_shape = s.CudnnFilterShape();
    const int64_t dims[4] = {cudnn_shape.dim_size(0), cudnn_shape.dim_size(1),
                             cudnn_shape.dim_size(2), cudnn_shape.dim_size(3)};
    OP_REQUIRES_CUDA(ctx,
                     LaunchPermute4D(ComputeStream(ctx), s.elem_bytes, grad_tmp.raw_data(), dims,
                                     s.CudnnToHwio(), out->raw_data()),
                     "Conv2DBackpropFilter: filter gradient transpose to HWIO");
  }

 private:
  static constexpr const char* kOp = "Conv2DBackpropFilter";
  Window2D window_;
  DataType dtype_ = DT_FLOAT;
};

}  // namespace

REGISTER_CUDA_KERNEL("Conv2D", CudaConv2DOp);
REGISTER_CUDA_KERNEL("Conv2DBackpropInput", CudaConv2DBackpropInputOp);
REGISTER_CUDA_KERNEL("Conv2DBackpropFilter", CudaConv2DBackpropFilterOp);

}  // namespace af::gpu
