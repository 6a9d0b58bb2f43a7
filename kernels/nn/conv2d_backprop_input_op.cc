// Conv2DBackpropInput: the gradient of Conv2D with respect to its input,
// i.e. out_backprop correlated with the spatially flipped filter. float
// through oneDNN, double through the direct loops.
#include <algorithm>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/window_geometry.h"
#include "kernels/nn/conv_dims.h"
#include "kernels/nn/conv_loops.h"
#include "kernels/nn/onednn_conv.h"

namespace af {

namespace {

constexpr const char* kOp = "Conv2DBackpropInput";

template <typename T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), conv_(ConvPass::kBackwardData) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES(ctx, filter.dims() == 4,
                ctx->NodeError(errors::InvalidArgument(
                    kOp, ": filter must be 4-dimensional: ", filter.shape().DebugString())));
    OP_REQUIRES(
        ctx, out_backprop.dims() == 4,
        ctx->NodeError(errors::InvalidArgument(
            kOp, ": out_backprop must be 4-dimensional: ", out_backprop.shape().DebugString())));
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(ShapeFromSizesInput(kOp, "input_sizes", sizes,
                                                           window_.format, out_backprop.dim_size(0),
                                                           filter.dim_size(2), &input_shape)));
    Conv2DDims d;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(ComputeConv2DDims(window_, input_shape, filter.shape(), &d)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckOutBackprop(kOp, d, out_backprop.shape())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return;
    T* grad = out->data<T>();
    if (out_backprop.NumElements() == 0 || filter.NumElements() == 0) {
      std::fill(grad, grad + out->NumElements(), T(0));
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      OP_REQUIRES_OK(
          ctx, ctx->NodeError(conv_.Run(d, grad, const_cast<float*>(out_backprop.data<float>()),
                                        const_cast<float*>(filter.data<float>()))));
    } else {
      conv_loops::BackpropInput(d, filter.data<T>(), out_backprop.data<T>(), grad);
    }
  }

 private:
  Window2D window_;
  OneDnnConv2D conv_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Conv2DBackpropInput")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .HostMemory("input_sizes")
                            .Expensive(),
                        Conv2DBackpropInputOp<float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Conv2DBackpropInput")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<double>("T")
                            .HostMemory("input_sizes")
                            .Expensive(),
                        Conv2DBackpropInputOp<double>);

}  // namespace af
