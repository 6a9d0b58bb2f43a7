// AccumulatorApplyGradient (and its Resource form) and
// SparseAccumulatorApplyGradient: async kernels that hand the gradient to
// the accumulator's actor and finish when it answers. They never wait for
// other steps; they are async because the answer (added, dropped as stale,
// or a shape error against the gradients held) is the actor's to give.
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

class ApplyGradientOp : public AsyncOpKernel {
 public:
  ApplyGradientOp(OpKernelConstruction* ctx, AccumulatorSpec::Kind kind)
      : AsyncOpKernel(ctx), kind_(kind) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    if (kind == AccumulatorSpec::Kind::kSparse)
      ctx->SetStatus(ctx->GetAttr("has_known_shape", &has_known_shape_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<AccumulatorInterface> accumulator;
    OP_REQUIRES_OK_ASYNC(ctx, LookupAccumulator(ctx, 0, &accumulator), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckAccumulator(ctx, *accumulator, kind_, dtype_), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, 1, "local_step"), done);
    const int64_t local_step = ctx->input(1).scalar<int64_t>();
    AccumulatorGradient gradient;
    if (kind_ == AccumulatorSpec::Kind::kDense) {
      gradient.dense = ctx->input(2);
    } else {
      gradient.indices = ctx->input(2);
      gradient.values = ctx->input(3);
      gradient.has_known_shape = has_known_shape_;
      if (has_known_shape_) gradient.shape = ctx->input(4);
    }
    accumulator->ApplyGradient(
        local_step, std::move(gradient), [ctx, done = std::move(done)](const Status& s, bool) {
          FinishOnDevice(ctx, [ctx, s, done]() {
            if (!s.ok()) ctx->SetStatus(ctx->NodeError(s));
            done();
          });
        });
  }

 private:
  const AccumulatorSpec::Kind kind_;
  DataType dtype_ = DT_FLOAT;
  bool has_known_shape_ = false;
};

class DenseApplyGradientOp : public ApplyGradientOp {
 public:
  explicit DenseApplyGradientOp(OpKernelConstruction* ctx)
      : ApplyGradientOp(ctx, AccumulatorSpec::Kind::kDense) {}
};

class SparseApplyGradientOp : public ApplyGradientOp {
 public:
  explicit SparseApplyGradientOp(OpKernelConstruction* ctx)
      : ApplyGradientOp(ctx, AccumulatorSpec::Kind::kSparse) {}
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("AccumulatorApplyGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseApplyGradientOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ResourceAccumulatorApplyGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseApplyGradientOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseAccumulatorApplyGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        SparseApplyGradientOp);

}  // namespace af
