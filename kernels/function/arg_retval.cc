// _Arg and _Retval: a step's feeds enter and its fetches leave through the
// step's CallFrame, sharing buffers with the caller.
#include "core/call_frame.h"
#include "core/kernel_registry.h"

namespace af {
namespace {

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("index", &index_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr,
                ctx->NodeError(errors::Internal("no call frame for the step's feeds")));
    Tensor value;
    OP_REQUIRES_OK(ctx, ctx->call_frame()->GetArg(static_cast<int>(index_), &value));
    OP_REQUIRES(ctx, value.dtype() == output_type(0),
                ctx->NodeError(errors::InvalidArgument(
                    "fed a ", DataTypeString(value.dtype()), " tensor where a ",
                    DataTypeString(output_type(0)), " tensor is expected")));
    ctx->set_output(0, std::move(value));
  }

 private:
  int64_t index_ = 0;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("index", &index_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr,
                ctx->NodeError(errors::Internal("no call frame for the step's fetches")));
    OP_REQUIRES_OK(ctx, ctx->call_frame()->SetRetval(static_cast<int>(index_), ctx->input(0)));
  }

 private:
  int64_t index_ = 0;
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Arg").Device(DEVICE_CPU), ArgOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Retval").Device(DEVICE_CPU), RetvalOp);

}  // namespace
}  // namespace af
