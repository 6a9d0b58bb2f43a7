// AccumulatorTryApplyGradient and SparseAccumulatorTryApplyGradient (our
// own ops, core/ops/accumulator_try_apply_ops.cc):
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
  TryApplyGradientOp(OpKernelConstruction* ctx, AccumulatorSpec::Kind kind)
      : AsyncOpKernel(ctx), kind_(kind) {
    Status s = ctx->GetAttr("dtype", &dtype_);
    if (s.ok() && ctx->HasAttr("replica")) s = ctx->GetAttr("replica", &replica_);
    if (s.ok() && kind == AccumulatorSpec::Kind::kSparse)
      s = ctx->GetAttr("has_known_shape", &has_known_shape_);
    ctx->SetStatus(s);
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<AccumulatorInterface> accumulator;
    OP_REQUIRES_OK_ASYNC(ctx, LookupAccumulator(ctx, 0, &accumulator), done);
    OP_REQUIRES_OK_ASYNC(
        ctx, CheckAccumulator(ctx, *accumulator, kind_, dtype_), done);
    const bool sparse = kind_ == AccumulatorSpec::Kind::kSparse;
    const int max_input = sparse ? 5 : 3;
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, 1, "local_step"), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, max_input, "max_accumulated"), done);
    const int64_t local_step = ctx->input(1).scalar<int64_t>();
    const int32_t max_accumulated = ctx->input(max_input).scalar<int32_t>();
    AccumulatorGradient gradient;
    if (sparse) {
      gradient.indices = ctx->input(2);
      gradient.values = ctx->input(3);
      gradient.has_known_shape = has_known_shape_;
      if (has_known_shape_) gradient.shape = ctx->input(4);
    } else {
      gradient.dense = ctx->input(2);
    }
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
  const AccumulatorSpec::Kind kind_;
  DataType dtype_ = DT_FLOAT;
  bool has_known_shape_ = false;
  std::string replica_;
};

class DenseTryApplyGradientOp : public TryApplyGradientOp {
 public:
  explicit DenseTryApplyGradientOp(OpKernelConstruction* ctx)
      : TryApplyGradientOp(ctx, AccumulatorSpec::Kind::kDense) {}
};

class SparseTryApplyGradientOp : public TryApplyGradientOp {
 public:
  explicit SparseTryApplyGradientOp(OpKernelConstruction* ctx)
      : TryApplyGradientOp(ctx, AccumulatorSpec::Kind::kSparse) {}
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("AccumulatorTryApplyGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseTryApplyGradientOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseAccumulatorTryApplyGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        SparseTryApplyGradientOp);

}  // namespace af
