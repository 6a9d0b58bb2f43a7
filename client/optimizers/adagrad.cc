#include "client/optimizers/adagrad.h"

#include "client/standard_ops.h"

namespace af {

Status AdagradOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                                    Operation* update) {
  Output accum;
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name(), initial_accumulator_value_, &accum));
  const DataType dtype = BaseType(var.type());
  *update =
      ops::ApplyAdagrad(scope, var, accum, LearningRate(scope, dtype, learning_rate_), grad).operation;
  return scope.status();
}

Status AdagradOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                     const Output& var, Operation* update) {
  Output accum;
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name(), initial_accumulator_value_, &accum));
  const DataType dtype = BaseType(var.type());
  *update = ops::SparseApplyAdagrad(scope, var, accum, LearningRate(scope, dtype, learning_rate_),
                                    slices.values, slices.indices)
                .operation;
  return scope.status();
}

}  // namespace af
