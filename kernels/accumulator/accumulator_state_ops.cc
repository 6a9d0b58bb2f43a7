// AccumulatorNumAccumulated and AccumulatorSetGlobalStep (and their
// Resource forms), for dense and sparse accumulators alike. They ask the
// accumulator's actor, so they are async kernels too, though they never
// wait for other steps.
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

class NumAccumulatedOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<AccumulatorInterface> accumulator;
    OP_REQUIRES_OK_ASYNC(ctx, LookupAccumulator(ctx, 0, &accumulator), done);
    accumulator->NumAccumulated([ctx, done = std::move(done)](const Status& s, int32_t n) {
      FinishOnDevice(ctx, [ctx, s, n, done]() {
        if (s.ok()) {
          ctx->set_output(0, Tensor::Scalar<int32_t>(n));
        } else {
          ctx->SetStatus(ctx->NodeError(s));
        }
        done();
      });
    });
  }
};

class SetGlobalStepOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ResourceRef<AccumulatorInterface> accumulator;
    OP_REQUIRES_OK_ASYNC(ctx, LookupAccumulator(ctx, 0, &accumulator), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalarInput(ctx, 1, "new_global_step"), done);
    accumulator->SetGlobalStep(ctx->input(1).scalar<int64_t>(),
                               [ctx, done = std::move(done)](const Status& s) {
                                 FinishOnDevice(ctx, [ctx, s, done]() {
                                   if (!s.ok()) ctx->SetStatus(ctx->NodeError(s));
                                   done();
                                 });
                               });
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("AccumulatorNumAccumulated").Device(DEVICE_CPU),
                        NumAccumulatedOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ResourceAccumulatorNumAccumulated").Device(DEVICE_CPU),
                        NumAccumulatedOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("AccumulatorSetGlobalStep").Device(DEVICE_CPU),
                        SetGlobalStepOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ResourceAccumulatorSetGlobalStep").Device(DEVICE_CPU),
                        SetGlobalStepOp);

}  // namespace af
