#include "client/optimizers/gradient_descent.h"

#include "client/standard_ops.h"

namespace af {

Status GradientDescentOptimizer::ApplyDense(const Scope& scope, const Output& grad,
                                            const Output& var, Operation* update) {
  const DataType dtype = BaseType(var.type());
  *update = ops::ApplyGradientDescent(scope, var, LearningRate(scope, dtype, learning_rate_), grad)
                .operation;
  return scope.status();
}

Status GradientDescentOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                             const Output& var, Operation* update) {
  const DataType dtype = BaseType(var.type());
  auto step = ops::Mul(scope, slices.values, LearningRate(scope, dtype, learning_rate_));
  *update = ops::ScatterSub(scope, var, slices.indices, step).operation;
  return scope.status();
}

}  // namespace af
