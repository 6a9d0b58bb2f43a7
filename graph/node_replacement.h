// Replacing a node by what it stands for (a function call by its inlined
// body, an If or While by its lowered form) without breaking anything that
// names it: fetches, targets and consumers keep working.
#pragma once

#include <vector>

#include "core/status.h"
#include "core/types.h"
#include "graph/graph.h"

namespace af {

struct TensorRef {
  Node* node = nullptr;
  int port = 0;
};

// A node's inputs as edges give them: one per data input port, in order,
// and the sources of its control edges.
struct NodeInputs {
  std::vector<TensorRef> data;
  std::vector<Node*> control;
};
NodeInputs InputsOf(const Node& node);

// Whether running `node` may change state: a stateful op, or one that
// takes a resource or a ref (QueueEnqueueV2 and AssignVariableOp are not
// marked stateful but change what their handle names).
bool HasSideEffects(const Node& node);

// Removes `node` and adds, under its name and requested device, an
// IdentityN of `results` (a NoOp when there are none) that waits for
// `control_outputs`; its consumers, data and control, read the new node.
// `types` are the results' types and must match `node`'s outputs.
// `added` gets the new node's id.
Status ReplaceNodeByResults(Graph* graph, Node* node, const std::vector<TensorRef>& results,
                            const DataTypeVector& types, const std::vector<Node*>& control_outputs,
                            std::vector<int>* added);

}  // namespace af
