// ResourceApplyGradientDescent, ResourceApplyMomentum, ResourceApplyAdam:
// the fused optimizer updates of training_ops.cc on resource variables,
// with the same row math (optimizer_row_updates.h) so the two kinds of
// variables cannot drift apart.
//
// The variables' locks are always taken (use_locking only chooses whether
// TensorFlow may race): the lock also orders the update against reads that
// share the buffer, which is what keeps an earlier read's value unchanged.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/state/optimizer_row_updates.h"
#include "kernels/state/ref_inputs.h"
#include "kernels/state/resource_variable_util.h"

namespace af {
namespace {

constexpr int kMaxVars = 3;

template <typename T>
class ResourceApplyBase : public OpKernel {
 public:
  explicit ResourceApplyBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    for (const auto& arg : ctx->op_def().input_arg()) input_names_.push_back(arg.name());
  }

 protected:
  // The variables handle inputs `var_inputs` name, of type T.
  Status Lookup(OpKernelContext* ctx, std::initializer_list<int> var_inputs,
                ResourceRef<ResourceVariable>* vars) const {
    int k = 0;
    for (int i : var_inputs) {
      AF_RETURN_IF_ERROR(state::LookupVariable(ctx, i, &vars[k]));
      AF_RETURN_IF_ERROR(state::CheckVariableDtype(ctx, i, *vars[k], DataTypeToEnum<T>::value));
      ++k;
    }
    return Status::OK();
  }

  // Under the variables' locks: each initialized and shaped like the first,
  // the listed inputs scalars, the gradient shaped like the variable; then
  // each variable's buffer made its own. On success `values` holds the
  // variables' tensors in order.
  Status CheckAndPrepare(OpKernelContext* ctx, std::initializer_list<int> var_inputs,
                         ResourceRef<ResourceVariable>* vars, std::initializer_list<int> scalars,
                         int grad_input, Tensor** values) const {
    int k = 0;
    for (int i : var_inputs) {
      AF_RETURN_IF_ERROR(state::InitializedValue(ctx, i, vars[k].get(), &values[k]));
      if (k > 0 && values[k]->shape() != values[0]->shape())
        return ctx->NodeError(errors::InvalidArgument(
            "var and ", InputName(i), " do not have the same shape: ",
            values[0]->shape().DebugString(), " vs ", values[k]->shape().DebugString()));
      ++k;
    }
    for (int i : scalars) {
      if (ctx->input(i).dims() != 0)
        return ctx->NodeError(errors::InvalidArgument(
            InputName(i), " is not a scalar: ", ctx->input(i).shape().DebugString()));
    }
    const Tensor& grad = ctx->input(grad_input);
    if (grad.shape() != values[0]->shape())
      return ctx->NodeError(errors::InvalidArgument(
          "var and ", InputName(grad_input), " do not have the same shape: ",
          values[0]->shape().DebugString(), " vs ", grad.shape().DebugString()));
    for (int j = 0; j < k; ++j) AF_RETURN_IF_ERROR(state::PrepareToUpdate(ctx, vars[j].get()));
    return Status::OK();
  }

  std::string InputName(int i) const {
    return i < static_cast<int>(input_names_.size()) ? input_names_[i]
                                                     : "input " + std::to_string(i);
  }

 private:
  std::vector<std::string> input_names_;
};

template <typename T>
class ResourceApplyGradientDescentOp : public ResourceApplyBase<T> {
 public:
  using ResourceApplyBase<T>::ResourceApplyBase;
  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ResourceVariable> vars[kMaxVars];
    OP_REQUIRES_OK(ctx, this->Lookup(ctx, {0}, vars));
    state::VariableLocks lock({vars[0].get()});
    Tensor* values[1];
    OP_REQUIRES_OK(ctx, this->CheckAndPrepare(ctx, {0}, vars, {1}, 2, values));
    T* var = values[0]->template data<T>();
    const T alpha = ctx->input(1).scalar<T>();
    const T* delta = ctx->input(2).data<T>();
    state::ParallelUpdate(ctx, values[0]->NumElements(), 3, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) var[i] -= alpha * delta[i];
    });
  }
};

template <typename T>
class ResourceApplyMomentumOp : public ResourceApplyBase<T> {
 public:
  explicit ResourceApplyMomentumOp(OpKernelConstruction* ctx) : ResourceApplyBase<T>(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ResourceVariable> vars[kMaxVars];
    OP_REQUIRES_OK(ctx, this->Lookup(ctx, {0, 1}, vars));
    state::VariableLocks lock({vars[0].get(), vars[1].get()});
    Tensor* values[2];
    OP_REQUIRES_OK(ctx, this->CheckAndPrepare(ctx, {0, 1}, vars, {2, 4}, 3, values));
    T* var = values[0]->template data<T>();
    T* accum = values[1]->template data<T>();
    const T lr = ctx->input(2).scalar<T>();
    const T* grad = ctx->input(3).data<T>();
    const T momentum = ctx->input(4).scalar<T>();
    const bool nesterov = use_nesterov_;
    state::ParallelUpdate(ctx, values[0]->NumElements(), 6, [=](int64_t b, int64_t e) {
      state::MomentumRow(var + b, accum + b, grad + b, e - b, lr, momentum, nesterov);
    });
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ResourceApplyAdamOp : public ResourceApplyBase<T> {
 public:
  explicit ResourceApplyAdamOp(OpKernelConstruction* ctx) : ResourceApplyBase<T>(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceRef<ResourceVariable> vars[kMaxVars];
    OP_REQUIRES_OK(ctx, this->Lookup(ctx, {0, 1, 2}, vars));
    state::VariableLocks lock({vars[0].get(), vars[1].get(), vars[2].get()});
    Tensor* values[3];
    OP_REQUIRES_OK(ctx, this->CheckAndPrepare(ctx, {0, 1, 2}, vars, {3, 4, 5, 6, 7, 8}, 9, values));
    T* var = values[0]->template data<T>();
    T* m = values[1]->template data<T>();
    T* v = values[2]->template data<T>();
    const T beta1_power = ctx->input(3).scalar<T>();
    const T beta2_power = ctx->input(4).scalar<T>();
    const T lr = ctx->input(5).scalar<T>();
    const T beta1 = ctx->input(6).scalar<T>();
    const T beta2 = ctx->input(7).scalar<T>();
    const T epsilon = ctx->input(8).scalar<T>();
    const T* grad = ctx->input(9).data<T>();
    const T lr_t = state::AdamStepSize(lr, beta1_power, beta2_power);
    const bool nesterov = use_nesterov_;
    state::ParallelUpdate(ctx, values[0]->NumElements(), 20, [=](int64_t b, int64_t e) {
      state::AdamRow(var + b, m + b, v + b, grad + b, e - b, lr_t, beta1, beta2, epsilon, nesterov);
    });
  }

 private:
  bool use_nesterov_ = false;
};

#define AF_REGISTER_RESOURCE_APPLY(T)                                                             \
  REGISTER_KERNEL_BUILDER(                                                                        \
      KernelDefBuilder("ResourceApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResourceApplyGradientDescentOp<T>);                                                         \
  REGISTER_KERNEL_BUILDER(                                                                        \
      KernelDefBuilder("ResourceApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      ResourceApplyMomentumOp<T>);                                                                \
  REGISTER_KERNEL_BUILDER(                                                                        \
      KernelDefBuilder("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ResourceApplyAdamOp<T>)

AF_REGISTER_RESOURCE_APPLY(float);
AF_REGISTER_RESOURCE_APPLY(double);
#undef AF_REGISTER_RESOURCE_APPLY

}  // namespace
}  // namespace af
