// L2Loss: sum(t ** 2) / 2 over every element, a scalar.
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/nn/blocked_sum.h"

namespace af {

namespace {

template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    // float sums in double so that large tensors keep their precision.
    using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
    const T* x = t.data<T>();
    const Acc sum = BlockedSum<Acc>(x, t.NumElements(), [](Acc v) { return v * v; });
    out->scalar<T>() = static_cast<T>(sum / 2);
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("L2Loss").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        L2LossOp<float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("L2Loss").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        L2LossOp<double>);

}  // namespace af
