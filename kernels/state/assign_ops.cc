// Assign, AssignAdd, AssignSub: update a variable through its reference and
// pass the reference on.
#include <complex>
#include <cstring>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/assign_plan.h"
#include "kernels/state/ref_inputs.h"

namespace af {
namespace {

void CopyElements(const Tensor& from, Tensor* to) {
  if (BaseType(from.dtype()) == DT_STRING) {
    const std::string* src = from.data<std::string>();
    std::string* dst = to->data<std::string>();
    for (int64_t i = 0; i < from.NumElements(); ++i) dst[i] = src[i];
  } else if (from.NumElements() > 0) {
    std::memcpy(to->raw_data(), from.raw_data(), from.TotalBytes());
  }
}

// ref = value, as state::PlanAssign decides (kernels/state/assign_plan.h):
// into the variable's own buffer, adopting the value's, or into a fresh
// buffer when someone else still holds one (which costs the same as the copy).
class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
    ctx->SetStatus(ctx->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor* lhs = nullptr;
    OP_REQUIRES_OK(ctx, state::RefInput(ctx, 0, &lhs));
    const Tensor& rhs = ctx->input(1);
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      state::AssignHow how = state::AssignHow::kCopyToFresh;
      OP_REQUIRES_OK(ctx, ctx->NodeError(state::PlanAssign(*lhs, rhs, validate_shape_, &how)));
      if (how == state::AssignHow::kCopyInPlace) {
        CopyElements(rhs, lhs);
      } else if (how == state::AssignHow::kAdopt) {
        *lhs = rhs;
      } else {
        Tensor fresh;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(BaseType(rhs.dtype()), rhs.shape(), &fresh));
        CopyElements(rhs, &fresh);
        *lhs = std::move(fresh);
      }
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool validate_shape_ = true;
  bool use_locking_ = true;
};

enum class Update { kAdd, kSub };

// ref += value / ref -= value, in place.
template <typename T, Update kUpdate>
class AssignUpdateOp : public OpKernel {
 public:
  explicit AssignUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      Tensor* ref = nullptr;
      OP_REQUIRES_OK(ctx, state::InitializedRefInput(ctx, 0, &ref));
      OP_REQUIRES(ctx, ref->shape() == value.shape(),
                  ctx->NodeError(errors::InvalidArgument(
                      "Cannot update variable with shape ", ref->shape().DebugString(),
                      " using a Tensor with shape ", value.shape().DebugString(),
                      ", shapes must be equal.")));
      T* dst = ref->data<T>();
      const T* src = value.data<T>();
      state::ParallelUpdate(ctx, ref->NumElements(), 2, [dst, src](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          if constexpr (kUpdate == Update::kAdd) {
            dst[i] += src[i];
          } else {
            dst[i] -= src[i];
          }
        }
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_locking_ = false;
};

#define AF_REGISTER_ASSIGN_UPDATE(T)                                                        \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>( \
                              "T"),                                                         \
                          AssignUpdateOp<T, Update::kAdd>);                                 \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>( \
                              "T"),                                                         \
                          AssignUpdateOp<T, Update::kSub>)

AF_REGISTER_ASSIGN_UPDATE(float);
AF_REGISTER_ASSIGN_UPDATE(double);
AF_REGISTER_ASSIGN_UPDATE(int32_t);
AF_REGISTER_ASSIGN_UPDATE(int64_t);
AF_REGISTER_ASSIGN_UPDATE(int16_t);
AF_REGISTER_ASSIGN_UPDATE(int8_t);
AF_REGISTER_ASSIGN_UPDATE(uint8_t);
AF_REGISTER_ASSIGN_UPDATE(uint16_t);
AF_REGISTER_ASSIGN_UPDATE(uint32_t);
AF_REGISTER_ASSIGN_UPDATE(uint64_t);
AF_REGISTER_ASSIGN_UPDATE(complex64);
AF_REGISTER_ASSIGN_UPDATE(complex128);
#undef AF_REGISTER_ASSIGN_UPDATE

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Assign").Device(DEVICE_CPU), AssignOp);

}  // namespace af
