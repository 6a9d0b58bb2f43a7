// AccumulatorTakeGradient (and its Resource form) and
// SparseAccumulatorTakeGradient: async kernels that finish when the
// accumulator holds num_required gradients and hands out their reduction.
// Until then the step waits, never a thread; the step's cancellation (an
// aborted step, its deadline, a closed session) withdraws the take in the
// accumulator's actor, and a withdrawn take takes nothing. The ops have no
// timeout attr in TensorFlow, so no deadline of their own.
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

class TakeGradientOp : public AsyncOpKernel {
 public:
  TakeGradientOp(OpKernelConstruction* ctx, AccumulatorSpec::Kind kind)
      : AsyncOpKernel(ctx), kind_(kind) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<AccumulatorInterface> accumulator;
    OP_REQUIRES_OK_ASYNC(ctx, LookupAccumulator(ctx, 0, &accumulator), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckAccumulator(ctx, *accumulator, kind_, dtype_), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, 1, "num_required"), done);
    const int32_t num_required = ctx->input(1).scalar<int32_t>();
    const bool sparse = kind_ == AccumulatorSpec::Kind::kSparse;
    auto answer = [ctx, sparse, done = std::move(done)](const Status& s,
                                                         AccumulatorGradient result) {
      FinishOnDevice(ctx, [ctx, sparse, s, result = std::move(result), done]() mutable {
        if (!s.ok()) {
          ctx->SetStatus(ctx->NodeError(s));
        } else if (sparse) {
          ctx->set_output(0, std::move(result.indices));
          ctx->set_output(1, std::move(result.values));
          ctx->set_output(2, std::move(result.shape));
        } else {
          ctx->set_output(0, std::move(result.dense));
        }
        done();
      });
    };
    accumulator->TakeGradient(num_required, ctx->cancellation_manager(), 0, std::move(answer));
  }

 private:
  const AccumulatorSpec::Kind kind_;
  DataType dtype_ = DT_FLOAT;
};

class DenseTakeGradientOp : public TakeGradientOp {
 public:
  explicit DenseTakeGradientOp(OpKernelConstruction* ctx)
      : TakeGradientOp(ctx, AccumulatorSpec::Kind::kDense) {}
};

class SparseTakeGradientOp : public TakeGradientOp {
 public:
  explicit SparseTakeGradientOp(OpKernelConstruction* ctx)
      : TakeGradientOp(ctx, AccumulatorSpec::Kind::kSparse) {}
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("AccumulatorTakeGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseTakeGradientOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ResourceAccumulatorTakeGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseTakeGradientOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseAccumulatorTakeGradient")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        SparseTakeGradientOp);

}  // namespace af
