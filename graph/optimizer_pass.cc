#include "graph/optimizer_pass.h"

#include <deque>

namespace af {

bool IsPreservedNode(const Node& node, const PassContext& context) {
  const std::string& op = node.type_string();
  if (op == "_Arg" || op == "_Retval") return true;
  return context.preserved.count(node.name()) > 0;
}

std::vector<bool> NodesInLoops(const Graph& graph) {
  std::vector<bool> in_loop(graph.num_node_ids(), false);
  std::deque<const Node*> work;
  for (const Node* n : graph.nodes())
    if (n->IsEnter()) {
      in_loop[n->id()] = true;
      work.push_back(n);
    }
  // Forward from every Enter, through Exits too: what a loop feeds is
  // counted as inside. That leaves some nodes after a loop unoptimized, but
  // never lets a pass treat a per-iteration value (say, behind an inner
  // loop's Exit) as a single one.
  while (!work.empty()) {
    const Node* n = work.front();
    work.pop_front();
    for (const Edge* e : n->out_edges()) {
      const Node* dst = e->dst();
      if (in_loop[dst->id()]) continue;
      in_loop[dst->id()] = true;
      work.push_back(dst);
    }
  }
  return in_loop;
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
