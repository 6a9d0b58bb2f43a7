#include "client/training/report_uninitialized_variables.h"

#include "client/standard_ops.h"
#include "client/variables.h"

namespace af {

namespace {

std::vector<Output> GlobalAndLocalVariables(const Scope& scope) {
  std::vector<Output> all = GlobalVariables(scope);
  for (const Operation& op : scope.GetCollection(kLocalVariablesCollection))
    all.push_back(op.output(0));
  return all;
}

}  // namespace

Output ReportUninitializedVariables(const Scope& scope, const std::vector<Output>& var_list) {
  const std::vector<Output> vars = var_list.empty() ? GlobalAndLocalVariables(scope) : var_list;
  const Scope s = scope.NewSubScope("report_uninitialized_variables");
  if (vars.empty()) {
    return ops::Const(s.WithOpName("Const"),
                      Input::Initializer(Tensor::FromVector<std::string>({})));
  }
  std::vector<Output> initialized;
  std::vector<std::string> names;
  for (const Output& v : vars) {
    // Colocated, so that a device function on the scope (a replica device
    // setter) cannot send the check away from the variable's task.
    initialized.push_back(ops::IsVariableInitialized(s.ColocateWith(v.op()), v));
    names.push_back(v.op().name());
  }
  auto uninitialized = ops::LogicalNot(s, ops::Pack(s, InputList(initialized)));
  auto all_names = ops::Const(s.WithOpName("Const"),
                              Input::Initializer(Tensor::FromVector<std::string>(names)));
  // BooleanMask for a vector: the names at the positions Where finds.
  const Scope mask = s.NewSubScope("boolean_mask");
  auto positions = ops::Reshape(mask, ops::Where(mask, uninitialized),
                                Input::Initializer(Tensor::FromVector<int64_t>({-1})));
  return ops::GatherV2(mask, all_names, positions,
                       Input::Initializer(Tensor::Scalar<int32_t>(0)));
}

std::vector<std::string> ReportedNames(const Tensor& report) {
  std::vector<std::string> names;
  if (report.dtype() != DT_STRING) return names;
  const int64_t n = report.NumElements();
  for (int64_t i = 0; i < n; ++i) names.push_back(report.data<std::string>()[i]);
  return names;
}

}  // namespace af
