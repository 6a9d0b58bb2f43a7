// VariableV2 (and its older name Variable), IsVariableInitialized and
// CountUpTo.
#include <mutex>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/resource_mgr.h"
#include "core/variable.h"
#include "kernels/state/ref_inputs.h"

namespace af {
namespace {

// Outputs a reference to the variable (container, shared_name) of the
// device's ResourceMgr, creating it uninitialized on first use. The kernel
// keeps the variable it found until the manager drops a resource (a
// container reset), then looks it up again.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    // Without one from the executor (tests, tools), use the device's: the
    // same manager a device actor would pass.
    if (rm == nullptr)
      rm = ResourceMgrForDevice(ctx->device() != nullptr ? ctx->device()->name() : "");
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t generation = rm->generation();
    if (!var_ || rm != rm_ || generation != generation_) {
      ResourceRef<Var> var;
      OP_REQUIRES_OK(ctx, rm->LookupOrCreate<Var>(container_, shared_name_, &var,
                                                  [this](Var** made) {
                                                    *made = new Var(dtype_);
                                                    return Status::OK();
                                                  }));
      DataType existing;
      {
        std::lock_guard<std::mutex> var_lock(*var->mu());
        existing = var->tensor()->dtype();
      }
      OP_REQUIRES(ctx, existing == dtype_,
                  ctx->NodeError(errors::InvalidArgument(
                      "Trying to share variable ", shared_name_, " of type ",
                      DataTypeString(dtype_), ", but it exists with type ",
                      DataTypeString(existing))));
      var_ = std::move(var);
      rm_ = rm;
      generation_ = generation;
    }
    ctx->set_output_ref(0, var_->mu(), var_->tensor());
  }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_, shared_name_;
  std::mutex mu_;  // serializes Compute: guards var_, rm_ and generation_
  ResourceRef<Var> var_;
  ResourceMgr* rm_ = nullptr;
  uint64_t generation_ = 0;
};

class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* ref = nullptr;
    OP_REQUIRES_OK(ctx, state::RefInput(ctx, 0, &ref));
    bool initialized;
    if (std::mutex* mu = ctx->input_ref_mutex(0)) {
      std::lock_guard<std::mutex> lock(*mu);
      initialized = ref->IsInitialized();
    } else {
      initialized = ref->IsInitialized();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<bool>() = initialized;
  }
};

template <typename T>
class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t limit = 0;
    ctx->SetStatus(ctx->GetAttr("limit", &limit));
    limit_ = static_cast<T>(limit);
  }

  void Compute(OpKernelContext* ctx) override {
    T before;
    {
      state::RefInputLocks lock(ctx, {0}, true);
      Tensor* ref = nullptr;
      OP_REQUIRES_OK(ctx, state::InitializedRefInput(ctx, 0, &ref));
      OP_REQUIRES(ctx, ref->dims() == 0,
                  ctx->NodeError(errors::InvalidArgument("input is not a scalar: ",
                                                         ref->shape().DebugString())));
      T& value = ref->scalar<T>();
      before = value;
      OP_REQUIRES(ctx, before < limit_,
                  ctx->NodeError(errors::OutOfRange("Reached limit of ", limit_)));
      ++value;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<T>() = before;
  }

 private:
  T limit_{};
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("VariableV2").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("IsVariableInitialized").Device(DEVICE_CPU),
                        IsVariableInitializedOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("CountUpTo").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
                        CountUpToOp<int32_t>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("CountUpTo").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
                        CountUpToOp<int64_t>);

}  // namespace af
