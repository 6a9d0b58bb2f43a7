#include "client/optimizers/ftrl.h"

#include "client/standard_ops.h"

namespace af {

Status FtrlOptimizer::Prepare(const Scope& scope, DataType dtype) {
  const auto refuse = [this](const char* what, double value, const char* requirement) {
    return errors::InvalidArgument(name(), ": ", what, " ", value, " must be ", requirement);
  };
  if (initial_accumulator_value_ < 0)
    return refuse("initial_accumulator_value", initial_accumulator_value_, "positive or zero");
  if (learning_rate_power_ > 0)
    return refuse("learning_rate_power", learning_rate_power_, "less than or equal to zero");
  if (l1_ < 0) return refuse("l1 regularization strength", l1_, "positive or zero");
  if (l2_ < 0) return refuse("l2 regularization strength", l2_, "positive or zero");
  if (l2_shrinkage_ < 0)
    return refuse("l2 shrinkage regularization strength", l2_shrinkage_, "positive or zero");
  return Status::OK();
}

Status FtrlOptimizer::Slots(const Output& var, Output* accum, Output* linear) {
  AF_RETURN_IF_ERROR(GetOrMakeSlot(var, name(), initial_accumulator_value_, accum));
  return GetOrMakeSlot(var, name() + "_1", 0.0, linear);
}

// Without shrinkage the V1 op, as TensorFlow picks: its graphs then match,
// and V1 leaves out a term V2 would add as zero.
Status FtrlOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                                 Operation* update) {
  Output accum, linear;
  AF_RETURN_IF_ERROR(Slots(var, &accum, &linear));
  const DataType dtype = BaseType(var.type());
  const Output lr = LearningRate(scope, dtype, learning_rate_);
  const Output l1 = Hyper(scope, dtype, l1_), l2 = Hyper(scope, dtype, l2_);
  const Output power = Hyper(scope, dtype, learning_rate_power_);
  if (l2_shrinkage_ <= 0) {
    *update = ops::ApplyFtrl(scope, var, accum, linear, grad, lr, l1, l2, power).operation;
  } else {
    *update = ops::ApplyFtrlV2(scope, var, accum, linear, grad, lr, l1, l2,
                               Hyper(scope, dtype, l2_shrinkage_), power)
                  .operation;
  }
  return scope.status();
}

Status FtrlOptimizer::ApplySparse(const Scope& scope, const IndexedSlices& slices,
                                  const Output& var, Operation* update) {
  Output accum, linear;
  AF_RETURN_IF_ERROR(Slots(var, &accum, &linear));
  const DataType dtype = BaseType(var.type());
  const Output lr = LearningRate(scope, dtype, learning_rate_);
  const Output l1 = Hyper(scope, dtype, l1_), l2 = Hyper(scope, dtype, l2_);
  const Output power = Hyper(scope, dtype, learning_rate_power_);
  if (l2_shrinkage_ <= 0) {
    *update = ops::SparseApplyFtrl(scope, var, accum, linear, slices.values, slices.indices, lr, l1,
                                   l2, power)
                  .operation;
  } else {
    *update = ops::SparseApplyFtrlV2(scope, var, accum, linear, slices.values, slices.indices, lr,
                                     l1, l2, Hyper(scope, dtype, l2_shrinkage_), power)
                  .operation;
  }
  return scope.status();
}

}  // namespace af
