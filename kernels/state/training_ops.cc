// Fused optimizer updates (ApplyGradientDescent, ApplyMomentum, ApplyAdam,
// ApplyAdagrad, ApplyRMSProp) with TensorFlow's formulas, updating the
// variable and its slots in place.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/apply_op_base.h"
#include "kernels/state/optimizer_row_updates.h"
#include "kernels/state/ref_inputs.h"

namespace af {
namespace {

template <typename T>
class ApplyGradientDescentOp : public state::ApplyOpBase {
 public:
  using state::ApplyOpBase::ApplyOpBase;
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      Tensor* refs[1];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0}, {1}, 2, refs));
      T* var = refs[0]->data<T>();
      const T alpha = ctx->input(1).scalar<T>();
      const T* delta = ctx->input(2).data<T>();
      state::ParallelUpdate(ctx, refs[0]->NumElements(), 3, [=](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) var[i] -= alpha * delta[i];
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }
};

template <typename T>
class ApplyMomentumOp : public state::ApplyOpBase {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : ApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1}, use_locking_);
      Tensor* refs[2];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1}, {2, 4}, 3, refs));
      T* var = refs[0]->data<T>();
      T* accum = refs[1]->data<T>();
      const T lr = ctx->input(2).scalar<T>();
      const T* grad = ctx->input(3).data<T>();
      const T momentum = ctx->input(4).scalar<T>();
      const bool nesterov = use_nesterov_;
      state::ParallelUpdate(ctx, refs[0]->NumElements(), 6, [=](int64_t b, int64_t e) {
        state::MomentumRow(var + b, accum + b, grad + b, e - b, lr, momentum, nesterov);
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public state::ApplyOpBase {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx) : ApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1, 2}, {3, 4, 5, 6, 7, 8}, 9, refs));
      T* var = refs[0]->data<T>();
      T* m = refs[1]->data<T>();
      T* v = refs[2]->data<T>();
      const T beta1_power = ctx->input(3).scalar<T>();
      const T beta2_power = ctx->input(4).scalar<T>();
      const T lr = ctx->input(5).scalar<T>();
      const T beta1 = ctx->input(6).scalar<T>();
      const T beta2 = ctx->input(7).scalar<T>();
      const T epsilon = ctx->input(8).scalar<T>();
      const T* grad = ctx->input(9).data<T>();
      const T lr_t = state::AdamStepSize(lr, beta1_power, beta2_power);
      const bool nesterov = use_nesterov_;
      state::ParallelUpdate(ctx, refs[0]->NumElements(), 20, [=](int64_t b, int64_t e) {
        state::AdamRow(var + b, m + b, v + b, grad + b, e - b, lr_t, beta1, beta2, epsilon,
                       nesterov);
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyAdagradOp : public state::ApplyOpBase {
 public:
  explicit ApplyAdagradOp(OpKernelConstruction* ctx) : ApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("update_slots", &update_slots_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1}, use_locking_);
      Tensor* refs[2];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1}, {2}, 3, refs));
      T* var = refs[0]->data<T>();
      T* accum = refs[1]->data<T>();
      const T lr = ctx->input(2).scalar<T>();
      const T* grad = ctx->input(3).data<T>();
      const bool update_slots = update_slots_;
      state::ParallelUpdate(ctx, refs[0]->NumElements(), 15, [=](int64_t b, int64_t e) {
        state::AdagradRow(var + b, accum + b, grad + b, e - b, lr, update_slots);
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool update_slots_ = true;
};

template <typename T>
class ApplyRMSPropOp : public state::ApplyOpBase {
 public:
  using state::ApplyOpBase::ApplyOpBase;
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1, 2}, {3, 4, 5, 6}, 7, refs));
      T* var = refs[0]->data<T>();
      T* ms = refs[1]->data<T>();
      T* mom = refs[2]->data<T>();
      const T lr = ctx->input(3).scalar<T>();
      const T rho = ctx->input(4).scalar<T>();
      const T momentum = ctx->input(5).scalar<T>();
      const T epsilon = ctx->input(6).scalar<T>();
      const T* grad = ctx->input(7).data<T>();
      state::ParallelUpdate(ctx, refs[0]->NumElements(), 20, [=](int64_t b, int64_t e) {
        state::RMSPropRow(var + b, ms + b, mom + b, grad + b, e - b, lr, rho, momentum, epsilon);
      });
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }
};

#define AF_REGISTER_APPLY(T)                                                                 \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      ApplyGradientDescentOp<T>);                                                            \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
      ApplyMomentumOp<T>);                                                                   \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>( \
                              "T"),                                                          \
                          ApplyAdamOp<T>);                                                   \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("ApplyAdagrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ApplyAdagradOp<T>);                                                                    \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("ApplyRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ApplyRMSPropOp<T>)

AF_REGISTER_APPLY(float);
AF_REGISTER_APPLY(double);
#undef AF_REGISTER_APPLY

}  // namespace
}  // namespace af
