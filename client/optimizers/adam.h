// Adam (Kingma & Ba): m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// var -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)
// (ApplyAdam). Slots "<var>/Adam" (m) and "<var>/Adam_1" (v) start at 0;
// the non-slot variables "beta1_power" and "beta2_power" hold b1^t and
// b2^t and advance after every step's updates.
//
// Sparse gradients: AdamOptimizer decays every row's m and v each step, as
// TensorFlow's does (so its sparse update still costs the whole table, in
// one pass: SparseApplyAdamAllRows, our op);
// LazyAdamOptimizer (TensorFlow's LazyAdamOptimizer) updates m, v and the
// variable only in the rows the gradient has: k rows' work, not V's, in one
// SparseApplyAdam (our op; TensorFlow composes it from gathers and scatters).
#pragma once

#include "client/optimizers/optimizer.h"

namespace af {

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8, bool use_nesterov = false,
                         std::string name = "Adam")
      : Optimizer(std::move(name)),
        learning_rate_(learning_rate),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon),
        use_nesterov_(use_nesterov) {}

 protected:
  Status Prepare(const Scope& scope, DataType dtype) override;
  Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                    Operation* update) override;
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;
  Status Finish(const Scope& scope, const std::vector<Operation>& updates,
                Operation* finish) override;

  // The slots of `var` (m, v), made on first use; `var` must have the
  // beta powers' type.
  Status Moments(const Output& var, Output* m, Output* v);
  // The slots of `var` and lr * sqrt(1 - b2^t) / (1 - b1^t).
  Status SparseParts(const Scope& scope, const Output& var, Output* m, Output* v,
                     Output* step_size);

 private:
  double learning_rate_, beta1_, beta2_, epsilon_;
  bool use_nesterov_;
  Output beta1_power_, beta2_power_;

  friend class LazyAdamOptimizer;
};

class LazyAdamOptimizer : public AdamOptimizer {
 public:
  explicit LazyAdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9,
                             double beta2 = 0.999, double epsilon = 1e-8,
                             std::string name = "LazyAdam")
      : AdamOptimizer(learning_rate, beta1, beta2, epsilon, false, std::move(name)) {}

 protected:
  Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                     Operation* update) override;
};

}  // namespace af
