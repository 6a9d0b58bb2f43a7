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

template <typename T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), conv_(ConvPass::kBackwardWeights) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DCall call;
    OP_REQUIRES_OK(ctx, PrepareConv2DBackpropFilter(ctx, window_, &call));
    if (call.work == Conv2DCall::Work::kNothing) return;
    T* grad = call.out->data<T>();
    if (call.work == Conv2DCall::Work::kZeros) {
      std::fill(grad, grad + call.out->NumElements(), T(0));
      return;
    }
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    const Conv2DDims& d = call.dims;
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
