// Placeholder: a value that must be fed; running the kernel means it was
// not. PlaceholderWithDefault passes its input through when not fed.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/forward_input.h"

namespace af {

namespace {

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("shape")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &expected_shape_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    // As TensorFlow, the shape is mentioned only when it says something
    // (known rank, at least one dim).
    if (expected_shape_.dims() > 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "You must feed a value for placeholder tensor '", name(), "' with dtype ",
          DataTypeString(output_type(0)), " and shape ", expected_shape_.DebugString()));
    } else {
      ctx->SetStatus(errors::InvalidArgument("You must feed a value for placeholder tensor '",
                                             name(), "' with dtype ",
                                             DataTypeString(output_type(0))));
    }
  }

 private:
  PartialTensorShape expected_shape_;
};

class PlaceholderWithDefaultOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0, 0); }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Placeholder").Device(DEVICE_CPU), PlaceholderOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("PlaceholderWithDefault").Device(DEVICE_CPU),
                        PlaceholderWithDefaultOp);

}  // namespace af
