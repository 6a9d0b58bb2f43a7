// StalenessClock and StalenessClockTick (Actorflow's own ops, core/ops/
// staleness_clock_ops.cc). StalenessClock outputs a handle to the clock
// (container, shared_name) of the device's ResourceMgr, creating it on
// first use; StalenessClockTick is an async kernel that finishes when the
// clock lets its worker go on, so a worker held back holds back its step,
// never a thread. The step's cancellation (an aborted step, its deadline,
// a closed session) withdraws the wait in the clock's actor.
//
// Without a shared_name the clock is private to the kernel, as
// accumulators and queues are: a session's plans share the kernel
// (runtime/kernel_segment.h), and the clock goes when the kernel does.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/resource_mgr.h"
#include "core/staleness_clock_interface.h"
#include "kernels/queue/queue_kernel_util.h"
#include "kernels/resource_handles.h"

namespace af {
namespace {

using queue_kernels::DeadlineFromTimeout;
using queue_kernels::FinishOnDevice;

// Distinguishes the private clocks of kernels made from the same node.
std::atomic<uint64_t> next_private_clock{0};

class StalenessClockOp : public OpKernel {
 public:
  explicit StalenessClockOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t num_workers = 0;
    ctx->SetStatus(ctx->GetAttr("num_workers", &num_workers));
    ctx->SetStatus(ctx->GetAttr("staleness", &spec_.staleness));
    ctx->SetStatus(ctx->GetAttr("inactive_after_ms", &spec_.inactive_after_ms));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &name_));
    spec_.num_workers = static_cast<int32_t>(num_workers);
    if (name_.empty()) {
      name_ = "_" + std::to_string(next_private_clock.fetch_add(1)) + "_" + name();
      private_ = true;
      spec_.name = name();
    } else {
      spec_.name = name_;
    }
  }

  ~StalenessClockOp() override {
    // A reset may have dropped the clock already.
    if (private_ && rm_ != nullptr) (void)rm_->Delete<StalenessClockInterface>(container_, name_);
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = DeviceResourceMgr(ctx);
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t generation = rm->generation();
    if (!clock_ || rm != rm_ || generation != generation_) {
      ResourceRef<StalenessClockInterface> clock;
      bool created = false;
      auto create = [&](StalenessClockInterface** made) {
        created = true;
        return CreateStalenessClock(spec_, made);
      };
      if (private_ && rm_ != nullptr && rm != rm_)  // a new manager: leave the old one's
        (void)rm_->Delete<StalenessClockInterface>(container_, name_);
      OP_REQUIRES_OK(ctx, ctx->NodeError(rm->LookupOrCreate<StalenessClockInterface>(
                              container_, name_, &clock, create)));
      if (!created) {
        OP_REQUIRES_OK(ctx, ctx->NodeError(StalenessClockSpecsMatch(clock->spec(), spec_)));
      }
      const std::string container = container_.empty() ? rm->default_container() : container_;
      handle_ = MakeDeviceResourceHandle(ctx, container, name_,
                                         StalenessClockInterface::kTypeName);
      clock_ = std::move(clock);
      rm_ = rm;
      generation_ = generation;
    }
    ctx->set_output(0, handle_);
  }

 private:
  StalenessClockSpec spec_;
  std::string container_, name_;
  bool private_ = false;

  std::mutex mu_;  // serializes Compute: guards clock_, rm_, generation_ and handle_
  ResourceRef<StalenessClockInterface> clock_;
  ResourceMgr* rm_ = nullptr;
  uint64_t generation_ = 0;
  Tensor handle_;
};

class StalenessClockTickOp : public AsyncOpKernel {
 public:
  explicit StalenessClockTickOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("timeout_ms", &timeout_ms_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::string container, name;
    OP_REQUIRES_OK_ASYNC(
        ctx, ResolveHandleInput(ctx, 0, "the staleness clock handle", &container, &name), done);
    ResourceRef<StalenessClockInterface> clock;
    OP_REQUIRES_OK_ASYNC(ctx,
                         ctx->NodeError(DeviceResourceMgr(ctx)->Lookup<StalenessClockInterface>(
                             container, name, &clock)),
                         done);
    const Tensor& worker = ctx->input(1);
    if (worker.dims() != 0 || !worker.IsInitialized()) {
      ctx->SetStatus(ctx->NodeError(errors::InvalidArgument(
          "Argument worker must be scalar, but had bad shape ", worker.shape().DebugString())));
      return done();
    }
    clock->Tick(worker.scalar<int32_t>(), ctx->cancellation_manager(),
                DeadlineFromTimeout(timeout_ms_),
                [ctx, done = std::move(done)](const Status& s, int64_t value) {
                  FinishOnDevice(ctx, [ctx, s, value, done]() {
                    if (s.ok()) {
                      ctx->set_output(0, Tensor::Scalar<int64_t>(value));
                    } else {
                      ctx->SetStatus(ctx->NodeError(s));
                    }
                    done();
                  });
                });
  }

 private:
  int64_t timeout_ms_ = -1;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("StalenessClock").Device(DEVICE_CPU), StalenessClockOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StalenessClockTick").Device(DEVICE_CPU),
                        StalenessClockTickOp);

}  // namespace af
