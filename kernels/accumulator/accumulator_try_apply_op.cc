// AccumulatorTryApplyGradient (our own op, core/ops/accumulator_try_apply_ops.cc):
// the apply kernel's path, plus the accumulator's verdict as the output.
// The actor already answers every apply with "kept or dropped"; TensorFlow's
// op throws that away, this one hands it to the step, so a worker counts
// its own dropped gradients exactly.
#include <string>
#include <utility>

#include "core/accumulator_interface.h"
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/accumulator/accumulator_kernel_util.h"
#include "kernels/queue/queue_kernel_util.h"

namespace af {
namespace {

using namespace accumulator_kernels;
using queue_kernels::FinishOnDevice;

class TryApplyGradientOp : public AsyncOpKernel {
 public:
  explicit TryApplyGradientOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    Status s = ctx->GetAttr("dtype", &dtype_);
    if (s.ok() && ctx->HasAttr("replica")) s = ctx->GetAttr("replica", &replica_);
    ctx->SetStatus(s);
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<AccumulatorInterface> accumulator;
    OP_REQUIRES_OK_ASYNC(ctx, LookupAccumulator(ctx, 0, &accumulator), done);
    OP_REQUIRES_OK_ASYNC(
        ctx, CheckAccumulator(ctx, *accumulator, AccumulatorSpec::Kind::kDense, dtype_), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, 1, "local_step"), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, 3, "max_accumulated"), done);
    const int64_t local_step = ctx->input(1).scalar<int64_t>();
    const int32_t max_accumulated = ctx->input(3).scalar<int32_t>();
    AccumulatorGradient gradient;
    gradient.dense = ctx->input(2);
    accumulator->ApplyGradientUpTo(
        local_step, max_accumulated, std::move(gradient),
        [ctx, done = std::move(done)](const Status& s, bool applied) {
          FinishOnDevice(ctx, [ctx, s, applied, done]() {
            if (s.ok()) {
              ctx->set_output(0, Tensor::Scalar<bool>(applied));
            } else {
              ctx->SetStatus(ctx->NodeError(s));
            }
            done();
          });
        },
        replica_);
  }

 private:
  DataType dtype_ = DT_FLOAT;
  std::string replica_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("AccumulatorTryApplyGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        TryApplyGradientOp);

}  // namespace af
