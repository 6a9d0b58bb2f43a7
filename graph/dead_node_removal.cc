#include "graph/dead_node_removal.h"

#include <vector>

#include "graph/graph_rewriter.h"
#include "graph/subgraph.h"

namespace af {
namespace {

bool HasControlOutEdge(const Node& n) {
  for (const Edge* e : n.out_edges())
    if (e->IsControlEdge()) return true;
  return false;
}

// Writing through a reference or a resource handle (Assign and friends) is
// an effect even when the op is not marked stateful.
bool HasEffect(const Node& n) {
  if (n.IsStateful()) return true;
  for (DataType t : n.input_types())
    if (IsRefType(t) || t == DT_RESOURCE) return true;
  return false;
}

bool SameDevice(const Node& a, const Node& b) {
  return a.requested_device() == b.requested_device() &&
         a.assigned_device_name() == b.assigned_device_name();
}

// The Identity's data source, or false when it must stay.
bool RemovableIdentity(const Node& n, const Edge** input) {
  if (n.type_string() != "Identity" || n.num_inputs() != 1 || IsRefType(n.input_type(0)))
    return false;
  *input = nullptr;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) return false;  // its consumers would lose the wait
    *input = e;
  }
  if (*input == nullptr) return false;
  const Node& src = *(*input)->src();
  if (!SameDevice(n, src)) return false;
  return !(src.IsSwitch() && HasControlOutEdge(n));
}

// Its single control input, nullptr when it has none; false when the NoOp
// has more than one input (then it joins several dependencies, which is a
// role of its own).
bool RemovableNoOp(const Node& n, Node** input) {
  if (n.type_string() != "NoOp") return false;
  *input = nullptr;
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() || *input != nullptr) return false;
    *input = e->src();
  }
  for (const Edge* e : n.out_edges())
    if (!e->IsControlEdge()) return false;
  return true;
}

}  // namespace

Status RemoveDeadNodes(Graph* graph, const PassContext& context, PassStats* stats) {
  std::vector<Node*> roots;
  for (Node* n : graph->nodes()) {
    if (HasEffect(*n) || IsPreservedNode(*n, context)) roots.push_back(n);
  }
  stats->nodes_removed += PruneForReverseReachability(graph, roots);
  return Status::OK();
}

Status RemoveIdentityChains(Graph* graph, const PassContext& context, PassStats* stats) {
  const std::vector<bool> in_loop = NodesInLoops(*graph);
  GraphRewriter rewriter(graph);
  // Only the node visited is removed, so the snapshot stays valid; a chain
  // collapses whichever end is visited first.
  for (Node* n : graph->nodes()) {
    if (in_loop[n->id()] || IsPreservedNode(*n, context)) continue;
    const Edge* input = nullptr;
    Node* control_input = nullptr;
    if (RemovableIdentity(*n, &input)) {
      rewriter.Bypass(n, input->src(), input->src_output());
      ++stats->nodes_removed;
    } else if (RemovableNoOp(*n, &control_input)) {
      // A NoOp has no data outputs, so only control successors move.
      rewriter.Bypass(n, control_input, kControlSlot);
      ++stats->nodes_removed;
    }
  }
  stats->nodes_rewritten += rewriter.Finish();
  return Status::OK();
}

}  // namespace af
