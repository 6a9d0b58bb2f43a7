// RMSProp: ms = decay * ms + (1 - decay) * grad^2;
// mom = momentum * mom + lr * grad / sqrt(ms + epsilon); var -= mom
// (ApplyRMSProp). Slots: "<var>/RMSProp" (mean square, starting at 1 as
// in TensorFlow) and "<var>/RMSProp_1" (momentum, starting at 0). A sparse
// gradient updates only its rows (SparseApplyRMSProp): the others' ms does
// not decay and their momentum does not carry them on.
#pragma once

#include "client/optimizers/optimizer.h"

namespace af {

class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double momentum = 0.0,
                            double epsilon = 1e-10, std::string name = "RMSProp")
      : Optimizer(std::move(name)),
        learning_rate_(learning_rate),
        decay_(decay),
        momentum_(momentum),
        epsilon_(epsilon) {}

 protected:
  Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                    Operation* update) override;
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;

 private:
  double learning_rate_, decay_, momentum_, epsilon_;
};

}  // namespace af
