// Functions from the C++ API: a body built with the ops API in its own
// Scope becomes a FunctionDef (TensorFlow's GraphToFunctionDef), joins a
// graph's library, and is called through PartitionedCall or
// StatefulPartitionedCall. Calls are inlined when a step is planned
// (graph/function_inlining.h) and differentiate like their bodies.
//
//   Scope body = Scope::NewRootScope();
//   auto x = ops::Placeholder(body.WithOpName("x"), DT_FLOAT);
//   auto y = ops::Mul(body, x, x);
//   tensorflow::FunctionDef square;
//   AF_RETURN_IF_ERROR(GraphToFunctionDef(*body.graph(), "square", {x}, {y}, {"y"}, &square));
//   AF_RETURN_IF_ERROR(AddFunctionToLibrary(root, square));
//   std::vector<Output> out = CallFunction(root, "square", {a});
#pragma once

#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"
#include "graph/graph.h"
#include "proto/function.pb.h"

namespace af {

// `inputs` are the body's Placeholders, each an argument named after its
// node; `outputs` its results, named `output_names` (default "output_I").
// The body is every node of `body` (a graph of its own, for this
// function); INVALID_ARGUMENT if it holds a Placeholder that is not an
// input. Stateful body nodes nothing else in the body waits for become
// control outputs, so a call runs them.
Status GraphToFunctionDef(const Graph& body, const std::string& name,
                          const std::vector<Output>& inputs, const std::vector<Output>& outputs,
                          const std::vector<std::string>& output_names,
                          tensorflow::FunctionDef* out);

// Adds `function` to the library of `scope`'s graph (the next Extend sends
// it). Redefining a name differently is INVALID_ARGUMENT.
Status AddFunctionToLibrary(const Scope& scope, const tensorflow::FunctionDef& function);

// A call of the library function `name` on `args`; its outputs. Stateful
// functions are called with StatefulPartitionedCall. Errors go to the scope.
std::vector<Output> CallFunction(const Scope& scope, const std::string& name,
                                 const std::vector<Output>& args);

}  // namespace af
