// Const: decodes its `value` attr once, when the kernel is built, and hands
// out that same buffer every step (no per-step copy or allocation).
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/tensor_proto.h"

namespace af {

namespace {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const tensorflow::TensorProto* proto = nullptr;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    OP_REQUIRES_OK(ctx, TensorFromProto(*proto, &value_, ctx->allocator()));
    OP_REQUIRES(
        ctx, value_.dtype() == ctx->output_types()[0],
        errors::InvalidArgument("Type mismatch between value (", DataTypeString(value_.dtype()),
                                ") and dtype (", DataTypeString(ctx->output_types()[0]), ")"));
  }

  // Downstream kernels share the buffer; it is never written to, since
  // kernels only write into buffers they allocated.
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Const").Device(DEVICE_CPU), ConstOp);

}  // namespace af
