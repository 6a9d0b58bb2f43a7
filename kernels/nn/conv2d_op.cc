// Conv2D: float through oneDNN (kernels/nn/onednn_conv.h), double through
// the direct loops (gradient checks run in double).
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
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx), conv_(ConvPass::kForward) {
    OP_REQUIRES_OK(ctx, ParseConv2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DCall call;
    OP_REQUIRES_OK(ctx, PrepareConv2D(ctx, window_, &call));
    if (call.work == Conv2DCall::Work::kNothing) return;
    T* y = call.out->data<T>();
    if (call.work == Conv2DCall::Work::kZeros) {
      std::fill(y, y + call.out->NumElements(), T(0));
      return;
    }
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Conv2DDims& d = call.dims;
    if constexpr (std::is_same_v<T, float>) {
      // oneDNN takes non-const handles; it only reads input and filter.
      OP_REQUIRES_OK(ctx, ctx->NodeError(conv_.Run(d, const_cast<float*>(input.data<float>()), y,
                                                   const_cast<float*>(filter.data<float>()))));
    } else {
      conv_loops::Forward(d, input.data<T>(), filter.data<T>(), y);
    }
  }

 private:
  Window2D window_;
  OneDnnConv2D conv_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("Conv2D").Device(DEVICE_CPU).TypeConstraint<float>("T").Expensive(),
    Conv2DOp<float>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("Conv2D").Device(DEVICE_CPU).TypeConstraint<double>("T").Expensive(),
    Conv2DOp<double>);

}  // namespace af
