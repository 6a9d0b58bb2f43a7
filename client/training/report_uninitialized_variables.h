// ReportUninitializedVariables: a string vector holding the names of the
// variables that have no value yet, as tf.report_uninitialized_variables.
// The training loop polls it to learn whether the chief has initialized
// (or restored) the model, and whether a restarted ps task lost its state.
//
//   auto report = ReportUninitializedVariables(root);
//   std::vector<Tensor> out;
//   AF_RETURN_IF_ERROR(session.Run({report}, &out));  // out[0]: {"w", "b"} or {}
#pragma once

#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// Built under the name scope "report_uninitialized_variables": one
// IsVariableInitialized per variable, colocated with it (so it runs where
// the value lives, on its ps task), then a boolean mask over a constant of
// the variables' names. `var_list` empty: every global and local variable
// of the scope's graph; a graph without variables gives a constant empty
// vector.
Output ReportUninitializedVariables(const Scope& scope, const std::vector<Output>& var_list = {});

// The names in a report's result (a DT_STRING vector).
std::vector<std::string> ReportedNames(const Tensor& report);

}  // namespace af
