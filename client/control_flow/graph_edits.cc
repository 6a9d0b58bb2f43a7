#include "client/control_flow/graph_edits.h"

#include "core/node_def_util.h"

namespace af {

void SyncNodeDefInputs(Node* n) { Graph::WriteInputs(*n, n->mutable_def()); }

void ReplaceInput(Graph* g, Node* dst, int dst_input, const Output& src) {
  for (const Edge* e : dst->in_edges()) {
    if (!e->IsControlEdge() && e->dst_input() == dst_input) {
      g->RemoveEdge(e);
      break;
    }
  }
  g->AddEdge(src.node(), src.index(), dst, dst_input);
  SyncNodeDefInputs(dst);
}

void AddControlInput(Graph* g, Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges())
    if (e->IsControlEdge() && e->src() == src) return;
  g->AddControlEdge(src, dst);
  SyncNodeDefInputs(dst);
}

std::vector<Node*> NodesBuiltSince(const Graph& g, int first_id,
                                   const std::function<bool(const Node*)>& keep) {
  std::vector<Node*> out;
  for (int id = first_id; id < g.num_node_ids(); ++id) {
    Node* n = g.FindNodeId(id);
    if (n != nullptr && keep(n)) out.push_back(n);
  }
  return out;
}

Status RouteOutsideInputs(Graph* g, const std::vector<Node*>& nodes,
                          const std::function<bool(const Node*)>& is_inside,
                          const RouteFn& route, Node* pivot) {
  for (Node* n : nodes) {
    std::vector<const Edge*> outside;
    for (const Edge* e : n->in_edges())
      if (!e->IsControlEdge() && !is_inside(e->src())) outside.push_back(e);
    for (const Edge* e : outside) {
      Output routed;
      AF_RETURN_IF_ERROR(route(Output(e->src(), e->src_output()), &routed));
      ReplaceInput(g, n, e->dst_input(), routed);
    }
  }
  for (Node* n : nodes)
    if (n->in_edges().empty()) AddControlInput(g, pivot, n);
  return Status::OK();
}

}  // namespace af
