#include "graph/graph_copy.h"

#include <vector>

namespace af {

Status CopyGraph(const Graph& src, Graph* dst) {
  if (dst->num_nodes() != 0) {
    return errors::InvalidArgument("CopyGraph: destination graph has ", dst->num_nodes(),
                                   " nodes; it must be empty");
  }
  dst->set_versions(src.versions());
  dst->set_library(src.library());
  // Indexed by source id; copies are looked up when wiring edges.
  std::vector<Node*> copies(src.num_node_ids(), nullptr);
  for (Node* n : src.nodes()) {
    Node* copy = nullptr;
    Status s = dst->AddNode(n->def(), &copy);
    if (!s.ok()) return s.WithContext("CopyGraph");
    copy->set_output_shapes(n->output_shapes());
    copy->set_assigned_device_name(n->assigned_device_name());
    copies[n->id()] = copy;
  }
  for (const Edge* e : src.edges()) {
    Node* from = copies[e->src()->id()];
    Node* to = copies[e->dst()->id()];
    if (e->IsControlEdge()) {
      dst->AddControlEdge(from, to);
    } else {
      dst->AddEdge(from, e->src_output(), to, e->dst_input());
    }
  }
  return Status::OK();
}

}  // namespace af
