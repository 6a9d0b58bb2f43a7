// Adagrad: accum += grad^2; var -= lr * grad / sqrt(accum) (ApplyAdagrad;
// a sparse gradient's rows with SparseApplyAdagrad, the same result).
// Slot: "<var>/Adagrad", starting at initial_accumulator_value.
#pragma once

#include "client/optimizers/optimizer.h"

namespace af {

class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(double learning_rate, double initial_accumulator_value = 0.1,
                            std::string name = "Adagrad")
      : Optimizer(std::move(name)),
        learning_rate_(learning_rate),
        initial_accumulator_value_(initial_accumulator_value) {}

 protected:
  Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                    Operation* update) override;
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;

 private:
  double learning_rate_, initial_accumulator_value_;
};

}  // namespace af
