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
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DDims d;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(ComputeConv2DDims(window_, input.shape(), filter.shape(), &d)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, d.OutputShape(), &out));
    if (out->NumElements() == 0) return;
    T* y = out->data<T>();
    if (input.NumElements() == 0 || filter.NumElements() == 0) {  // an empty sum
      std::fill(y, y + out->NumElements(), T(0));
      return;
    }
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
