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

template <typename T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), conv_(ConvPass::kBackwardData) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DCall call;
    OP_REQUIRES_OK(ctx, PrepareConv2DBackpropInput(ctx, window_, &call));
    if (call.work == Conv2DCall::Work::kNothing) return;
    T* grad = call.out->data<T>();
    if (call.work == Conv2DCall::Work::kZeros) {
      std::fill(grad, grad + call.out->NumElements(), T(0));
      return;
    }
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    const Conv2DDims& d = call.dims;
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
