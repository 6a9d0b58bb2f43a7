#include "client/optimizers/momentum.h"

#include "client/standard_ops.h"

namespace af {

Status MomentumOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                                     Operation* update) {
  Output accum;
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, "Momentum", 0.0, &accum));
  const DataType dtype = BaseType(var.type());
  *update = ops::ApplyMomentum(scope, var, accum, LearningRate(scope, dtype, learning_rate_), grad,
                               Hyper(scope, dtype, momentum_),
                               ops::ApplyMomentum::UseNesterov(use_nesterov_))
                .operation;
  return scope.status();
}

Status MomentumOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                      const Output& var, Operation* update) {
  Output accum;
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, "Momentum", 0.0, &accum));
  const DataType dtype = BaseType(var.type());
  *update = ops::SparseApplyMomentum(scope, var, accum, LearningRate(scope, dtype, learning_rate_),
                                     slices.values, slices.indices, Hyper(scope, dtype, momentum_),
                                     ops::SparseApplyMomentum::UseNesterov(use_nesterov_))
                .operation;
  return scope.status();
}

}  // namespace af
