#include "client/optimizers/rmsprop.h"

#include "client/standard_ops.h"

namespace af {

Status RMSPropOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                                    Operation* update) {
  Output ms, mom;
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name(), 1.0, &ms));
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name() + "_1", 0.0, &mom));
  const DataType dtype = BaseType(var.type());
  *update = ops::ApplyRMSProp(scope, var, ms, mom, LearningRate(scope, dtype, learning_rate_),
                              Hyper(scope, dtype, decay_), Hyper(scope, dtype, momentum_),
                              Hyper(scope, dtype, epsilon_), grad)
                .operation;
  return scope.status();
}

Status RMSPropOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                     const Output& var, Operation* update) {
  Output ms, mom;
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name(), 1.0, &ms));
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name() + "_1", 0.0, &mom));
  const DataType dtype = BaseType(var.type());
  *update = ops::SparseApplyRMSProp(scope, var, ms, mom, LearningRate(scope, dtype, learning_rate_),
                                    Hyper(scope, dtype, decay_), Hyper(scope, dtype, momentum_),
                                    Hyper(scope, dtype, epsilon_), slices.values, slices.indices)
                .operation;
  return scope.status();
}

}  // namespace af
