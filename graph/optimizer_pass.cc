#include "graph/optimizer_pass.h"

#include "graph/algorithm.h"

namespace af {

bool IsPreservedNode(const Node& node, const PassContext& context) {
  const std::string& op = node.type_string();
  if (op == "_Arg" || op == "_Retval") return true;
  return context.preserved.count(node.name()) > 0;
}

std::vector<bool> NodesInLoops(const Graph& graph) {
  // Forward from every Enter, through Exits too: what a loop feeds is
  // counted as inside. That leaves some nodes after a loop unoptimized, but
  // never lets a pass treat a per-iteration value (say, behind an inner
  // loop's Exit) as a single one.
  std::vector<const Node*> enters;
  for (const Node* n : graph.nodes())
    if (n->IsEnter()) enters.push_back(n);
  return ReachableFrom(graph, enters);
}

bool IsPureNode(const Node& node) {
  if (node.IsStateful() || node.IsControlFlow() || node.IsSend() || node.IsRecv()) return false;
  if (node.IsPlaceholder() || node.IsVariable()) return false;
  // A resource input means side effects even in an op not marked stateful
  // (QueueEnqueueV2, AssignVariableOp): never merged or removed.
  for (DataType t : node.input_types())
    if (IsRefType(t) || t == DT_RESOURCE) return false;
  for (DataType t : node.output_types())
    if (IsRefType(t) || t == DT_RESOURCE) return false;
  return true;
}

}  // namespace af
