// Plain gradient descent: var -= learning_rate * grad (ApplyGradientDescent;
// sparse rows with ScatterSub, touching only those rows).
#pragma once

#include "client/optimizers/optimizer.h"

namespace af {

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate, std::string name = "GradientDescent")
      : Optimizer(std::move(name)), learning_rate_(learning_rate) {}

 protected:
  Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                    Operation* update) override;
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;

 private:
  double learning_rate_;
};

}  // namespace af
