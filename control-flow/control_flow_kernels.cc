// CPU kernels of the loop and conditional primitives. The interesting
// semantics (frames, iterations, deadness) live in the executor; the
// kernels only route values.
#include "core/kernel_registry.h"

namespace af {
namespace {

// Output 0 takes input 0 as it is, a reference staying a reference.
void ForwardInput(OpKernelContext* ctx, int in, int out) {
  if (ctx->input_is_ref(in))
    ctx->set_output_ref(out, ctx->input_ref_mutex(in), ctx->mutable_input(in));
  else
    ctx->set_output(out, ctx->input(in));
}

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0 && pred.dtype() == DT_BOOL && pred.IsInitialized(),
                ctx->NodeError(errors::InvalidArgument(
                    "the predicate must be a bool scalar, got a ",
                    DataTypeString(pred.dtype()), " tensor of shape ",
                    pred.shape().DebugString())));
    // The untaken output stays unset: the executor treats it as dead.
    ForwardInput(ctx, 0, pred.scalar<bool>() ? 1 : 0);
  }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      ForwardInput(ctx, i, 0);
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
      return;
    }
    ctx->SetStatus(ctx->NodeError(errors::Internal("Merge ran without a live input")));
  }
};

class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0, 0); }
};

class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(0);
    OP_REQUIRES(ctx, pred.dims() == 0 && pred.dtype() == DT_BOOL,
                ctx->NodeError(errors::InvalidArgument(
                    "the loop condition must be a bool scalar, got shape ",
                    pred.shape().DebugString())));
    ctx->set_output(0, pred);
  }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefSwitch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefMerge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefExit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("RefNextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("LoopCond").Device(DEVICE_CPU), LoopCondOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ControlTrigger").Device(DEVICE_CPU), ControlTriggerOp);

}  // namespace
}  // namespace af
