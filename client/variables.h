// Variables for the C++ API, like tf.Variable: a VariableV2 node plus the
// Assign that initializes it. The scope's graph keeps them in collections
// so optimizers find the trainable ones and GlobalVariablesInitializer
// runs every initializer.
//
//   Variable w(root.WithOpName("w"), ops::RandomStandardNormal(root, {784, 10}, DT_FLOAT));
//   auto y = ops::MatMul(root, x, w);
//   session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"

namespace af {
namespace ops {
class VariableV2;
}  // namespace ops

// Collection names (TensorFlow's).
inline constexpr const char* kVariablesCollection = "variables";
inline constexpr const char* kTrainableVariablesCollection = "trainable_variables";
inline constexpr const char* kInitializersCollection = "initializers";
inline constexpr const char* kGlobalStepCollection = "global_step";
// Local variables (TensorFlow's collection): per-process state such as the
// epoch counters of input producers, neither saved nor run by
// GlobalVariablesInitializer. Their initializers are kept in a collection of
// our own.
inline constexpr const char* kLocalVariablesCollection = "local_variables";
inline constexpr const char* kLocalInitializersCollection = "local_variable_initializers";

class Variable {
 public:
  // Shape and dtype from `initial_value` (its shape must be known when the
  // graph is built). The variable is named by the scope (WithOpName), its
  // initializer "<name>/Assign".
  Variable(const Scope& scope, const Input& initial_value, bool trainable = true);
  Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
           const Input& initial_value, bool trainable = true);
  // The initial value built by `make_initial_value` in a scope colocated
  // with the variable, as TensorFlow builds an initializer given as a
  // function (a partitioned variable's): a large initial value is made where
  // the variable lives, never made elsewhere and shipped to it.
  using InitialValueFn = std::function<Output(const Scope& scope)>;
  Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
           const InitialValueFn& make_initial_value, bool trainable = true);

  operator Output() const { return var; }  // NOLINT
  operator Input() const { return var; }   // NOLINT
  Node* node() const { return var.node(); }
  const std::string& name() const { return var.op().name(); }

  Output var;             // the variable's storage (a ref output)
  Operation initializer;  // assigns the initial value

 private:
  // The initializer of `v` and the collections.
  Variable(const Scope& scope, const ops::VariableV2& v, const Input& initial_value,
           bool trainable);
};

// The trainable variables built in the scope's graph, in creation order.
std::vector<Output> TrainableVariables(const Scope& scope);
// Every variable (trainable or not, slots included).
std::vector<Output> GlobalVariables(const Scope& scope);
// A NoOp that runs every variable initializer created so far.
Operation GlobalVariablesInitializer(const Scope& scope);
// A NoOp that runs every local variable initializer created so far
// (tf.local_variables_initializer).
Operation LocalVariablesInitializer(const Scope& scope);

// The graph's int64 step counter "global_step" (created at 0 on first use,
// not trainable).
Output GetOrCreateGlobalStep(const Scope& scope);

}  // namespace af
