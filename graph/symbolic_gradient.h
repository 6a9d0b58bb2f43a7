// SymbolicGradient nodes (TensorFlow's gradient of a function, as TF 1
// graphs with Defun gradients hold them): before a step's calls are
// inlined, each becomes a call of a gradient function added to the graph's
// library, which inlining then treats like any call. Building the gradient
// function needs the gradient registry, which lives above this layer
// (client/): the client installs the builder when it is linked in.
#pragma once

#include <functional>

#include "core/status.h"
#include "core/types.h"
#include "graph/graph.h"
#include "proto/function.pb.h"

namespace af {

// Writes into `gradient` a function of f's inputs and one gradient per f
// output, returning one gradient per f input (zeros where an input does not
// reach an output). `input_types` are the node's Tin: f's input types, then
// f's output types. `library` is the graph's, for f and what it calls.
using SymbolicGradientBuilder = std::function<Status(
    const tensorflow::FunctionDefLibrary& library, const tensorflow::NameAttrList& f,
    const DataTypeVector& input_types, const std::string& gradient_name,
    tensorflow::FunctionDef* gradient)>;
void InstallSymbolicGradientBuilder(SymbolicGradientBuilder builder);

bool IsSymbolicGradient(const Node& node);

// Replaces every SymbolicGradient node of `graph` by a (Stateful)PartitionedCall
// of its gradient function, added to the graph's library. Without an
// installed builder: UNIMPLEMENTED naming the node. `expanded` (optional)
// counts the nodes replaced.
Status ExpandSymbolicGradients(Graph* graph, int* expanded = nullptr);

}  // namespace af
