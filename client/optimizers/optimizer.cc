#include "client/optimizers/optimizer.h"

#include "client/gradients.h"
#include "client/gradients/grad_helpers.h"
#include "client/standard_ops.h"

namespace af {

Output Optimizer::Hyper(const Scope& scope, DataType dtype, double value) {
  return grad::ScalarOfType(scope, dtype, value);
}

Output Optimizer::LearningRate(const Scope& scope, DataType dtype, double value) const {
  if (!learning_rate_tensor_) return Hyper(scope, dtype, value);
  const Output& lr = *learning_rate_tensor_;
  if (BaseType(lr.type()) == dtype) return lr;
  return ops::Cast(scope, lr, dtype);
}

Status Optimizer::ComputeGradients(const Scope& scope, const Output& loss,
                                   const std::vector<Output>& var_list,
                                   std::vector<GradAndVar>* grads_and_vars) {
  AF_RETURN_IF_ERROR(scope.status());
  std::vector<Output> vars = var_list.empty() ? TrainableVariables(scope) : var_list;
  if (vars.empty())
    return errors::InvalidArgument(name_, ": no variables to optimize (create them with ",
                                   "af::Variable or pass a var_list)");
  std::vector<GradientValue> grads;
  AF_RETURN_IF_ERROR(AddSymbolicGradients(scope, {loss}, vars, &grads));
  grads_and_vars->clear();
  for (size_t i = 0; i < vars.size(); ++i) grads_and_vars->emplace_back(grads[i], vars[i]);
  return Status::OK();
}

Status Optimizer::ApplyGradients(const Scope& scope,
                                 const std::vector<GradAndVar>& grads_and_vars,
                                 const Output& global_step, Operation* train_op) {
  AF_RETURN_IF_ERROR(scope.status());
  if (grads_and_vars.empty())
    return errors::InvalidArgument(name_, ": no gradients to apply");
  slot_scope_ = scope.WithNoControlDependencies();
  const Scope apply = scope.NewSubScope(name_);
  AF_RETURN_IF_ERROR(Prepare(apply, BaseType(grads_and_vars[0].second.type())));
  std::vector<Operation> updates;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!var.valid() || !IsRefType(var.type()))
      return errors::InvalidArgument(name_, ": '", var.name(),
                                     "' is not a variable (a ref output of VariableV2)");
    if (!grad.valid()) continue;
    Operation update;
    const Scope update_scope =
        apply.NewSubScope("update_" + var.op().name()).ColocateWith(var.op());
    if (grad.is_sparse()) {
      const IndexedSlices rows = grad.slices().indices_unique
                                     ? grad.slices()
                                     : DeduplicateSlices(update_scope, grad.slices());
      AF_RETURN_IF_ERROR(update_scope.status());
      AF_RETURN_IF_ERROR(ApplySparse(update_scope, rows, var, &update));
    } else {
      AF_RETURN_IF_ERROR(ApplyDense(update_scope, grad.dense(), var, &update));
    }
    AF_RETURN_IF_ERROR(scope.status());
    updates.push_back(update);
  }
  Operation finish;
  AF_RETURN_IF_ERROR(Finish(apply, updates, &finish));
  AF_RETURN_IF_ERROR(scope.status());
  if (!global_step.valid()) {
    *train_op = finish;
    return Status::OK();
  }
  // The step counts completed updates: it runs after all of them.
  auto increment = ops::AssignAdd(
      scope.WithOpName(name_).WithControlDependencies({finish}).ColocateWith(global_step.op()),
      global_step, Input::Initializer(Tensor::Scalar<int64_t>(1)));
  AF_RETURN_IF_ERROR(scope.status());
  *train_op = increment.operation;
  return Status::OK();
}

Status Optimizer::Minimize(const Scope& scope, const Output& loss, Operation* train_op,
                           const std::vector<Output>& var_list) {
  std::vector<GradAndVar> grads_and_vars;
  AF_RETURN_IF_ERROR(ComputeGradients(scope, loss, var_list, &grads_and_vars));
  const Output step = GetOrCreateGlobalStep(scope);
  AF_RETURN_IF_ERROR(scope.status());
  return ApplyGradients(scope, grads_and_vars, step, train_op);
}

Status Optimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                              const Output& var, Operation* update) {
  return ApplyDense(scope, ToDense(scope, slices), var, update);
}

Status Optimizer::Finish(const Scope& scope, const std::vector<Operation>& updates,
                         Operation* finish) {
  *finish = ops::NoOp(scope.WithOpName("update").WithControlDependencies(updates)).operation;
  return scope.status();
}

Status Optimizer::GetOrMakeSlot(const Output& var, const std::string& slot_name,
                                double initial, Output* slot) {
  if (!slot_scope_) return errors::Internal(name_, ": slots are made inside ApplyGradients");
  const Scope& scope = *slot_scope_;
  auto key = std::make_pair(static_cast<const Node*>(var.node()), slot_name);
  if (auto it = slots_.find(key); it != slots_.end()) {
    *slot = it->second;
    return Status::OK();
  }
  TensorShape shape;
  if (!var.shape().AsTensorShape(&shape))
    return errors::InvalidArgument(name_, ": variable '", var.op().name(),
                                   "' needs a fully known shape for its slot '", slot_name,
                                   "', has ", var.shape().DebugString());
  const DataType dtype = BaseType(var.type());
  // Slots belong to the variable, not to the update that first needed them.
  const Scope slot_scope = scope.ColocateWith(var.op());
  const std::string slot_node = var.op().name() + "/" + slot_name;
  std::vector<int64_t> dims = shape.dim_vector();
  auto fill = ops::Fill(slot_scope.WithOpName(slot_node + "/Initializer"),
                        grad::IndexVector(slot_scope, DT_INT64, dims),
                        Hyper(slot_scope, dtype, initial));
  Variable v(slot_scope.WithOpName(slot_node), PartialTensorShape(shape), dtype, fill,
             /*trainable=*/false);
  AF_RETURN_IF_ERROR(scope.status());
  slots_[key] = v.var;
  *slot = v.var;
  return Status::OK();
}

}  // namespace af
