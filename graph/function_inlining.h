// Function calls become part of the step's graph: each PartitionedCall,
// StatefulPartitionedCall or direct call of a library function is replaced
// by a copy of the function's body, so the placer and partitioner treat the
// body like any other nodes (TensorFlow 2 inlines calls the same way).
//
// What a call looked like from outside stays true:
// - the call's name survives as an IdentityN of the function's results (a
//   NoOp when it has none), so fetches and targets naming it still work;
// - that node waits for the function's control outputs and for every
//   stateful body node nothing else waits for, so running the call runs its
//   side effects;
// - arguments pass through one Identity each ("CALL/ARG"), and body nodes
//   without inputs wait for them and for the call's control inputs, so a
//   call inside a loop or a cond runs its whole body in that frame and with
//   that deadness;
// - loops inside the body get frame names of their own per call.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "graph/function_instantiation.h"
#include "graph/graph.h"
#include "graph/node_replacement.h"

namespace af {

// A function's body copied into a graph.
struct FunctionBodyCopy {
  std::vector<Node*> arguments;    // the Identity reading each flat argument
  std::vector<TensorRef> results;  // each flat result
  DataTypeVector result_types;
  std::vector<Node*> control_outputs;  // control_ret nodes and stateful sinks
  std::vector<Node*> body;             // the body's own nodes
};

// Copies `function`'s body into `graph`, instantiated with `attrs`: nodes
// named PREFIX + their body name, on `device` where the body names none,
// reading `inputs` (one per flat argument) and waiting for
// `control_inputs`. Calls inside the body stay calls. `added` gets the new
// nodes' ids. Errors start with `label` (the caller, for messages).
Status CopyFunctionBody(Graph* graph, const tensorflow::FunctionDef& function, const AttrMap& attrs,
                        const std::string& prefix, const std::string& device,
                        const std::string& label, const std::vector<TensorRef>& inputs,
                        const std::vector<Node*>& control_inputs, std::vector<int>* added,
                        FunctionBodyCopy* out);

struct InlineStats {
  int calls_inlined = 0;
  int nodes_added = 0;
};

// Whether any node of `graph` calls a function.
bool HasFunctionCalls(const Graph& graph);

// Inlines every call, and the calls in the bodies inlined, until none is
// left. Errors name the calling node and the function: a missing function,
// arguments or results whose types differ from the signature, a body input
// that names nothing, recursion deeper than kMaxFunctionCallDepth.
// Inlining that grows the graph past kMaxInlinedGraphNodes is
// RESOURCE_EXHAUSTED.
inline constexpr int kMaxFunctionCallDepth = 64;
inline constexpr int kMaxInlinedGraphNodes = 4'000'000;
Status InlineFunctionCalls(Graph* graph, InlineStats* stats = nullptr);

}  // namespace af
