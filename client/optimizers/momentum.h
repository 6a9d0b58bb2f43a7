// Momentum: accum = momentum * accum + grad; var -= lr * accum, or with
// Nesterov var -= lr * (grad + momentum * accum) (ApplyMomentum). Slot:
// "<var>/Momentum", starting at zero. A sparse gradient moves only its rows
// (SparseApplyMomentum): rows it lacks keep their accum, undecayed, and do
// not move, where a dense zero gradient would still carry them on.
#pragma once

#include "client/optimizers/optimizer.h"

namespace af {

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false,
                    std::string name = "Momentum")
      : Optimizer(std::move(name)),
        learning_rate_(learning_rate),
        momentum_(momentum),
        use_nesterov_(use_nesterov) {}

 protected:
  Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                    Operation* update) override;
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;

 private:
  double learning_rate_, momentum_;
  bool use_nesterov_;
};

}  // namespace af
