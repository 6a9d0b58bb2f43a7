// ConditionalAccumulator, ResourceConditionalAccumulator and
// SparseConditionalAccumulator: each run outputs a handle to the
// accumulator (container, shared_name) of the device's ResourceMgr,
// creating it on first use.
//
// Without a shared_name the accumulator is private to the kernel, as in
// TensorFlow (and as queues are here): a session's plans share the kernel
// (runtime/kernel_segment.h), so its apply and take steps meet the same
// accumulator, and the accumulator goes when the kernel does.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "core/accumulator_interface.h"
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/resource_handle.h"
#include "core/resource_mgr.h"
#include "kernels/accumulator/accumulator_kernel_util.h"
#include "kernels/resource_handles.h"

namespace af {
namespace {

// Distinguishes the private accumulators of kernels made from the same
// node (several sessions, or a server's sessions, in one process).
std::atomic<uint64_t> next_private_accumulator{0};

class AccumulatorCreateOp : public OpKernel {
 public:
  AccumulatorCreateOp(OpKernelConstruction* ctx, AccumulatorSpec::Kind kind) : OpKernel(ctx) {
    spec_.kind = kind;
    ctx->SetStatus(ctx->GetAttr("dtype", &spec_.dtype));
    ctx->SetStatus(ctx->GetAttr("shape", &spec_.shape));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &name_));
    std::string reduction;
    ctx->SetStatus(ctx->GetAttr("reduction_type", &reduction));
    spec_.reduction = reduction == "SUM" ? AccumulatorSpec::Reduction::kSum
                                         : AccumulatorSpec::Reduction::kMean;
    is_resource_ = ctx->output_types().size() == 1 && ctx->output_types()[0] == DT_RESOURCE;
    if (name_.empty()) {
      name_ = "_" + std::to_string(next_private_accumulator.fetch_add(1)) + "_" + name();
      private_ = true;
      spec_.name = name();
    } else {
      spec_.name = name_;
    }
  }

  ~AccumulatorCreateOp() override {
    // A reset may have dropped the accumulator already.
    if (private_ && rm_ != nullptr) (void)rm_->Delete<AccumulatorInterface>(container_, name_);
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = DeviceResourceMgr(ctx);
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t generation = rm->generation();
    if (!accumulator_ || rm != rm_ || generation != generation_) {
      ResourceRef<AccumulatorInterface> accumulator;
      bool created = false;
      auto create = [&](AccumulatorInterface** made) {
        created = true;
        return CreateAccumulator(spec_, made);
      };
      if (private_ && rm_ != nullptr && rm != rm_)  // a new manager: leave the old one's
        (void)rm_->Delete<AccumulatorInterface>(container_, name_);
      OP_REQUIRES_OK(ctx, ctx->NodeError(rm->LookupOrCreate<AccumulatorInterface>(
                              container_, name_, &accumulator, create)));
      if (!created) {
        OP_REQUIRES_OK(ctx,
                       ctx->NodeError(AccumulatorSpecsMatch(accumulator->spec(), spec_)));
      }
      const std::string container = container_.empty() ? rm->default_container() : container_;
      if (is_resource_) {
        handle_ =
            MakeDeviceResourceHandle(ctx, container, name_, AccumulatorInterface::kTypeName);
      } else {
        std::lock_guard<std::mutex> handle_lock(handle_mu_);
        handle_ = Tensor(DT_STRING, TensorShape{2});
        handle_.data<std::string>()[0] = container;
        handle_.data<std::string>()[1] = name_;
      }
      accumulator_ = std::move(accumulator);
      rm_ = rm;
      generation_ = generation;
    }
    if (is_resource_) {
      ctx->set_output(0, handle_);
    } else {
      ctx->set_output_ref(0, &handle_mu_, &handle_);
    }
  }

 private:
  AccumulatorSpec spec_;
  std::string container_, name_;
  bool private_ = false;
  bool is_resource_ = false;

  std::mutex mu_;  // serializes Compute: guards accumulator_, rm_, generation_, handle_
  ResourceRef<AccumulatorInterface> accumulator_;
  ResourceMgr* rm_ = nullptr;
  uint64_t generation_ = 0;
  std::mutex handle_mu_;  // guards handle_ for TF1 consumers reading it by reference
  Tensor handle_;
};

class DenseAccumulatorOp : public AccumulatorCreateOp {
 public:
  explicit DenseAccumulatorOp(OpKernelConstruction* ctx)
      : AccumulatorCreateOp(ctx, AccumulatorSpec::Kind::kDense) {}
};

class SparseAccumulatorOp : public AccumulatorCreateOp {
 public:
  explicit SparseAccumulatorOp(OpKernelConstruction* ctx)
      : AccumulatorCreateOp(ctx, AccumulatorSpec::Kind::kSparse) {}
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("ConditionalAccumulator")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseAccumulatorOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ResourceConditionalAccumulator")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        DenseAccumulatorOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseConditionalAccumulator")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", accumulator_kernels::KernelTypes()),
                        SparseAccumulatorOp);

}  // namespace af
