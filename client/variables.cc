#include "client/variables.h"

#include "client/op_builder.h"
#include "client/standard_ops.h"

namespace af {

namespace {

std::vector<Output> Vars(const Scope& scope, const char* collection) {
  std::vector<Output> out;
  for (const Operation& op : scope.GetCollection(collection)) out.push_back(op.output(0));
  return out;
}

// A variable's shape must be known when the graph is built; false (with
// the scope's status set) when it is not.
bool ShapeIsKnown(const Scope& scope, const PartialTensorShape& shape) {
  if (shape.IsFullyDefined()) return true;
  scope.UpdateStatus(errors::InvalidArgument(
      "Variable: the shape ", shape.DebugString(),
      " is not fully known; give the variable an explicit shape"));
  return false;
}

}  // namespace

Variable::Variable(const Scope& scope, const Input& initial_value, bool trainable) {
  if (!scope.ok()) return;
  // The initial value is built first so its shape and type are known.
  Output value;
  if (initial_value.is_constant()) {
    value = ops::Const(scope.WithoutOpName().NewSubScope("initial_value"),
                       Input::Initializer(initial_value.tensor()));
  } else {
    value = initial_value.output();
  }
  if (!scope.ok()) return;
  if (!value.valid()) {
    scope.UpdateStatus(errors::InvalidArgument("Variable: the initial value is not valid"));
    return;
  }
  *this = Variable(scope, value.shape(), BaseType(value.type()), value, trainable);
}

Variable::Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                   const Input& initial_value, bool trainable) {
  if (!scope.ok() || !ShapeIsKnown(scope, shape)) return;
  auto v = ops::VariableV2(scope, shape, dtype);
  if (!scope.ok()) return;
  *this = Variable(scope, v, initial_value, trainable);
}

Variable::Variable(const Scope& scope, const ops::VariableV2& v, const Input& initial_value,
                   bool trainable) {
  var = v.ref;
  const Scope init_scope =
      scope.WithOpName(v.operation.name() + "/Assign").ColocateWith(v.operation);
  auto assign = ops::Assign(init_scope, var, initial_value);
  if (!scope.ok()) return;
  initializer = assign.operation;
  scope.AddToCollection(kVariablesCollection, v.operation);
  if (trainable) scope.AddToCollection(kTrainableVariablesCollection, v.operation);
  scope.AddToCollection(kInitializersCollection, initializer);
}

Variable::Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                   const InitialValueFn& make_initial_value, bool trainable) {
  if (!scope.ok() || !ShapeIsKnown(scope, shape)) return;
  auto v = ops::VariableV2(scope, shape, dtype);
  if (!scope.ok()) return;
  const Output value =
      make_initial_value(scope.WithoutOpName().NewSubScope("Initializer").ColocateWith(v.operation));
  if (!scope.ok()) return;
  if (!value.valid()) {
    scope.UpdateStatus(errors::InvalidArgument("Variable '", v.operation.name(),
                                               "': the initial value is not valid"));
    return;
  }
  *this = Variable(scope, v, value, trainable);
}

std::vector<Output> TrainableVariables(const Scope& scope) {
  return Vars(scope, kTrainableVariablesCollection);
}

std::vector<Output> GlobalVariables(const Scope& scope) {
  return Vars(scope, kVariablesCollection);
}

Operation GlobalVariablesInitializer(const Scope& scope) {
  return ops::NoOp(scope.WithOpName("init").WithControlDependencies(
                       scope.GetCollection(kInitializersCollection)))
      .operation;
}

Operation LocalVariablesInitializer(const Scope& scope) {
  return ops::NoOp(scope.WithOpName("init_local_variables")
                       .WithControlDependencies(scope.GetCollection(kLocalInitializersCollection)))
      .operation;
}

Output GetOrCreateGlobalStep(const Scope& scope) {
  const std::vector<Operation> existing = scope.GetCollection(kGlobalStepCollection);
  if (!existing.empty()) return existing[0].output(0);
  Variable step(scope.WithOpName("global_step").WithNoControlDependencies().ClearColocation(),
                PartialTensorShape(TensorShape{}), DT_INT64,
                Input::Initializer(Tensor::Scalar<int64_t>(0)), /*trainable=*/false);
  if (!scope.ok()) return Output();
  scope.AddToCollection(kGlobalStepCollection, step.var.op());
  return step.var;
}

}  // namespace af
