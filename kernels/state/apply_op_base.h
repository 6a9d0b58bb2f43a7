// The checks every Apply* optimizer kernel makes before it updates, on any
// device: the ref inputs initialized and shaped like the variable, the
// hyper-parameters scalars, the gradient shaped like the variable.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "core/op_kernel.h"
#include "kernels/state/ref_inputs.h"

namespace af::state {

// Shared checks: ref inputs initialized and shaped like the variable, the
// listed inputs scalars and the gradient shaped like the variable. On
// success `refs` holds the ref inputs' storage in order.
class ApplyOpBase : public OpKernel {
 public:
  explicit ApplyOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_locking", &use_locking_));
    // Every input of these ops is a single tensor: arg i is input i.
    for (const auto& arg : ctx->op_def().input_arg()) input_names_.push_back(arg.name());
  }

 protected:
  Status CheckInputs(OpKernelContext* ctx, std::initializer_list<int> ref_inputs,
                     std::initializer_list<int> scalar_inputs, int grad_input,
                     Tensor** refs) const {
    int k = 0;
    for (int i : ref_inputs) {
      AF_RETURN_IF_ERROR(state::InitializedRefInput(ctx, i, &refs[k]));
      if (k > 0 && refs[k]->shape() != refs[0]->shape())
        return ctx->NodeError(errors::InvalidArgument(
            "var and ", InputName(i), " do not have the same shape: ",
            refs[0]->shape().DebugString(), " vs ", refs[k]->shape().DebugString()));
      ++k;
    }
    for (int i : scalar_inputs) {
      if (ctx->input(i).dims() != 0)
        return ctx->NodeError(errors::InvalidArgument(
            InputName(i), " is not a scalar: ", ctx->input(i).shape().DebugString()));
    }
    const Tensor& grad = ctx->input(grad_input);
    if (grad.shape() != refs[0]->shape())
      return ctx->NodeError(errors::InvalidArgument(
          "var and ", InputName(grad_input), " do not have the same shape: ",
          refs[0]->shape().DebugString(), " vs ", grad.shape().DebugString()));
    return Status::OK();
  }

  // The op's name for input i ("accum", "lr", ...).
  std::string InputName(int i) const {
    return i < static_cast<int>(input_names_.size()) ? input_names_[i]
                                                     : "input " + std::to_string(i);
  }

  bool use_locking_ = false;

 private:
  std::vector<std::string> input_names_;
};

}  // namespace af::state
