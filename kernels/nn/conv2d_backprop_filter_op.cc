// Conv2DBackpropFilter: the gradient of Conv2D with respect to its filter,
// the correlation of the input with out_backprop summed over the batch.
// float through oneDNN, double through the direct loops.
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

constexpr const char* kOp = "Conv2DBackpropFilter";

template <typename T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), conv_(ConvPass::kBackwardWeights) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(ShapeFromSizesInput(kOp, "filter_sizes", sizes,
                                                           window_.format, -1, -1, &filter_shape)));
    Conv2DDims d;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(ComputeConv2DDims(window_, input.shape(), filter_shape, &d)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckOutBackprop(kOp, d, out_backprop.shape())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    if (out->NumElements() == 0) return;
    T* grad = out->data<T>();
    if (input.NumElements() == 0 || out_backprop.NumElements() == 0) {
      std::fill(grad, grad + out->NumElements(), T(0));
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      OP_REQUIRES_OK(
          ctx, ctx->NodeError(conv_.Run(d, const_cast<float*>(input.data<float>()),
                                        const_cast<float*>(out_backprop.data<float>()), grad)));
    } else {
      conv_loops::BackpropFilter(d, input.data<T>(), out_backprop.data<T>(), grad);
    }
  }

 private:
  Window2D window_;
  OneDnnConv2D conv_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Conv2DBackpropFilter")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .HostMemory("filter_sizes")
                            .Expensive(),
                        Conv2DBackpropFilterOp<float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Conv2DBackpropFilter")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<double>("T")
                            .HostMemory("filter_sizes")
                            .Expensive(),
                        Conv2DBackpropFilterOp<double>);

}  // namespace af
