#include "client/optimizers/adam.h"

#include "client/standard_ops.h"

namespace af {

Status AdamOptimizer::Prepare(const Scope& scope, DataType dtype) {
  if (beta1_power_.valid()) return Status::OK();
  const Scope& base = base_scope();
  Variable b1(base.WithOpName("beta1_power"), PartialTensorShape(TensorShape{}), dtype,
              Hyper(base, dtype, beta1_), /*trainable=*/false);
  Variable b2(base.WithOpName("beta2_power"), PartialTensorShape(TensorShape{}), dtype,
              Hyper(base, dtype, beta2_), /*trainable=*/false);
  AF_RETURN_IF_ERROR(scope.status());
  beta1_power_ = b1.var;
  beta2_power_ = b2.var;
  return Status::OK();
}

Status AdamOptimizer::Moments(const Output& var, Output* m, Output* v) {
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name(), 0.0, m));
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name() + "_1", 0.0, v));
  const DataType dtype = BaseType(var.type());
  if (BaseType(beta1_power_.type()) != dtype)
    return errors::InvalidArgument(name(), ": variable '", var.op().name(), "' is ",
                                   DataTypeString(dtype), " but the first variable was ",
                                   DataTypeString(BaseType(beta1_power_.type())));
  return Status::OK();
}

Status AdamOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                                 Operation* update) {
  Output m, v;
  AF_RETURN_IF_ERROR(Moments(var, &m, &v));
  const DataType dtype = BaseType(var.type());
  *update = ops::ApplyAdam(scope, var, m, v, beta1_power_, beta2_power_,
                           LearningRate(scope, dtype, learning_rate_), Hyper(scope, dtype, beta1_),
                           Hyper(scope, dtype, beta2_), Hyper(scope, dtype, epsilon_), grad,
                           ops::ApplyAdam::UseNesterov(use_nesterov_))
                .operation;
  return scope.status();
}

Status AdamOptimizer::SparseParts(const Scope& scope, const Output& var, Output* m, Output* v,
                                  Output* step_size) {
  AF_RETURN_IF_ERROR(Moments(var, m, v));
  const DataType dtype = BaseType(var.type());
  auto one = Hyper(scope, dtype, 1.0);
  *step_size = ops::Div(scope,
                        ops::Mul(scope, LearningRate(scope, dtype, learning_rate_),
                                 ops::Sqrt(scope, ops::Sub(scope, one, beta2_power_))),
                        ops::Sub(scope, one, beta1_power_));
  return scope.status();
}

// TensorFlow's sparse Adam: every row's moments decay, the gradient's rows
// add in, and every row of the variable moves. For float and double one
// SparseApplyAdamAllRows does it in one pass with the composition's exact
// arithmetic; the scaled rows are computed here, as the composition does.
Status AdamOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                  const Output& var, Operation* update) {
  Output m, v, step_size;
  AF_RETURN_IF_ERROR(SparseParts(scope, var, &m, &v, &step_size));
  const DataType dtype = BaseType(var.type());
  auto m_rows = ops::Mul(scope, slices.values, Hyper(scope, dtype, 1 - beta1_));
  auto v_rows =
      ops::Mul(scope, ops::Square(scope, slices.values), Hyper(scope, dtype, 1 - beta2_));
  if (dtype == DT_FLOAT || dtype == DT_DOUBLE) {
    *update = ops::SparseApplyAdamAllRows(scope, var, m, v, step_size, Hyper(scope, dtype, beta1_),
                                          Hyper(scope, dtype, beta2_),
                                          Hyper(scope, dtype, epsilon_), m_rows, v_rows,
                                          slices.indices)
                  .operation;
    return scope.status();
  }
  auto decayed_m = ops::Assign(scope, m, ops::Mul(scope, m, Hyper(scope, dtype, beta1_)));
  auto m_t = ops::ScatterAdd(scope, decayed_m, slices.indices, m_rows);
  auto decayed_v = ops::Assign(scope, v, ops::Mul(scope, v, Hyper(scope, dtype, beta2_)));
  auto v_t = ops::ScatterAdd(scope, decayed_v, slices.indices, v_rows);
  auto denom = ops::Add(scope, ops::Sqrt(scope, v_t), Hyper(scope, dtype, epsilon_));
  *update = ops::AssignSub(scope, var,
                           ops::Mul(scope, step_size, ops::Div(scope, m_t, denom)))
                .operation;
  return scope.status();
}

// Only the gradient's rows: one SparseApplyAdam reads each row's moments,
// advances them and moves the variable in one pass. Its ref inputs (var and
// both slots) keep it on the variable's task, as ApplyAdam is.
Status LazyAdamOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                      const Output& var, Operation* update) {
  Output m, v;
  AF_RETURN_IF_ERROR(Moments(var, &m, &v));
  const DataType dtype = BaseType(var.type());
  *update = ops::SparseApplyAdam(scope, var, m, v, beta1_power_, beta2_power_,
                                 LearningRate(scope, dtype, learning_rate_),
                                 Hyper(scope, dtype, beta1_), Hyper(scope, dtype, beta2_),
                                 Hyper(scope, dtype, epsilon_), slices.values, slices.indices,
                                 ops::SparseApplyAdam::UseNesterov(use_nesterov_))
                .operation;
  return scope.status();
}

// The powers advance once every update of the step has read them.
Status AdamOptimizer::Finish(const Scope& scope, const std::vector<Operation>& updates,
                             Operation* finish) {
  const DataType dtype = BaseType(beta1_power_.type());
  const Scope after = scope.WithControlDependencies(updates);
  auto advance = [&](const Output& power, double beta, const char* name) {
    auto next = ops::Mul(after, power, Hyper(after, dtype, beta));
    return ops::Assign(after.ColocateWith(power.op()).WithOpName(name), power, next).operation;
  };
  const Operation next1 = advance(beta1_power_, beta1_, "update_beta1");
  const Operation next2 = advance(beta2_power_, beta2_, "update_beta2");
  AF_RETURN_IF_ERROR(scope.status());
  *finish = ops::NoOp(scope.WithOpName("update")
                          .WithControlDependencies(updates)
                          .WithControlDependencies({next1, next2}))
                .operation;
  return scope.status();
}

}  // namespace af
