// FTRL-Proximal (McMahan et al. 2013), TensorFlow's FtrlOptimizer: per
// coordinate an adaptive learning rate from the summed squared gradients
// and a closed-form weight that L1 holds at exactly zero while the
// accumulated evidence is weak, which keeps wide sparse models sparse
// (ApplyFtrl, or ApplyFtrlV2 when l2_shrinkage is set; a sparse gradient's
// rows with SparseApplyFtrl / SparseApplyFtrlV2, the other rows untouched).
// Slots: "<var>/<name>" (accum, starting at initial_accumulator_value) and
// "<var>/<name>_1" (linear, starting at 0).
#pragma once

#include "client/optimizers/optimizer.h"

namespace af {

class FtrlOptimizer : public Optimizer {
 public:
  explicit FtrlOptimizer(double learning_rate, double learning_rate_power = -0.5,
                         double initial_accumulator_value = 0.1, double l1 = 0.0, double l2 = 0.0,
                         std::string name = "Ftrl", double l2_shrinkage = 0.0)
      : Optimizer(std::move(name)),
        learning_rate_(learning_rate),
        learning_rate_power_(learning_rate_power),
        initial_accumulator_value_(initial_accumulator_value),
        l1_(l1),
        l2_(l2),
        l2_shrinkage_(l2_shrinkage) {}

 protected:
  // Refuses hyper-parameters TensorFlow's constructor refuses.
  Status Prepare(const Scope& scope, DataType dtype) override;
  Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                    Operation* update) override;
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;

 private:
  // The slots of `var`: accum and linear.
  Status Slots(const Output& var, Output* accum, Output* linear);

  double learning_rate_, learning_rate_power_, initial_accumulator_value_, l1_, l2_, l2_shrinkage_;
};

}  // namespace af
