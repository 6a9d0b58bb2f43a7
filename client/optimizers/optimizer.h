// Optimizer: turns gradients into variable updates, as TensorFlow's
// tf.train optimizers. Minimize(loss) adds the gradients of the loss with
// respect to the trainable variables, one update per variable (the fused
// Apply* ops), and an increment of the global step that runs after every
// update; it returns that increment as the train op.
//
//   GradientDescentOptimizer sgd(0.1);
//   Operation train;
//   AF_RETURN_IF_ERROR(sgd.Minimize(root, loss, &train));
//   for (...) session.Run({{x, batch}}, {}, {train}, nullptr);
//
// Slot variables (momentum, Adam's m and v, accumulators) are created next
// to their variable (colocated, named "<var>/<slot>") the first time an
// optimizer updates it, and join the graph's initializers, so run
// GlobalVariablesInitializer after Minimize.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/indexed_slices.h"
#include "client/ops.h"
#include "client/scope.h"
#include "client/variables.h"
#include "core/status.h"

namespace af {

// (gradient, variable ref). The gradient of a variable read only by
// gathers is IndexedSlices; the update then touches only those rows.
using GradAndVar = std::pair<GradientValue, Output>;

class Optimizer {
 public:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::string& name() const { return name_; }

  // Gradients of `loss` for `var_list` (the trainable variables if empty).
  Status ComputeGradients(const Scope& scope, const Output& loss,
                          const std::vector<Output>& var_list,
                          std::vector<GradAndVar>* grads_and_vars);
  // One update per pair, then `global_step` += 1 (when valid). `train_op`
  // runs all of it.
  Status ApplyGradients(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                        const Output& global_step, Operation* train_op);
  // A learning rate computed in the graph (a decay schedule, a placeholder)
  // instead of the constant given to the constructor, as TensorFlow's
  // optimizers accept a tensor. Takes effect for updates built afterwards.
  void SetLearningRate(const Output& learning_rate) { learning_rate_tensor_ = learning_rate; }

  // Both, with the graph's global step.
  Status Minimize(const Scope& scope, const Output& loss, Operation* train_op,
                  const std::vector<Output>& var_list = {});

 protected:
  // Nodes shared by every update of one ApplyGradients (hyper-parameter
  // constants, Adam's beta powers).
  virtual Status Prepare(const Scope& scope, DataType dtype) { return Status::OK(); }
  // The update of one variable from its gradient.
  virtual Status ApplyDense(const Scope& scope, const Output& grad, const Output& var,
                            Operation* update) = 0;
  // The update of one variable from rows of its gradient. `slices` has one
  // row per distinct index (ApplyGradients summed the repeats), as
  // TensorFlow's _apply_sparse sees them. The default converts the rows to
  // a tensor and calls ApplyDense: right, but it touches every row.
  virtual Status ApplySparse(const Scope& scope, const IndexedSlices& slices, const Output& var,
                             Operation* update);
  // Runs after every update (Adam advances its beta powers here).
  virtual Status Finish(const Scope& scope, const std::vector<Operation>& updates,
                        Operation* finish);

  // A slot variable of `var`'s shape and type filled with `initial`,
  // colocated with `var` and named "<var>/<slot_name>" in the scope given
  // to ApplyGradients; made once per (variable, slot).
  Status GetOrMakeSlot(const Output& var, const std::string& slot_name, double initial,
                       Output* slot);
  // The scope given to ApplyGradients (for non-slot variables).
  const Scope& base_scope() const { return *slot_scope_; }
  // A scalar hyper-parameter of `dtype`.
  static Output Hyper(const Scope& scope, DataType dtype, double value);
  // The learning rate as a `dtype` scalar: SetLearningRate's tensor (cast
  // when its type differs) or `value`.
  Output LearningRate(const Scope& scope, DataType dtype, double value) const;

 private:
  std::string name_;
  std::optional<Output> learning_rate_tensor_;
  std::optional<Scope> slot_scope_;  // the scope of the current ApplyGradients
  std::map<std::pair<const Node*, std::string>, Output> slots_;
};

}  // namespace af
