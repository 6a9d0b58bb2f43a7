#include "graph/graph_rewriter.h"

#include <vector>

namespace af {

GraphRewriter::GraphRewriter(Graph* graph) : graph_(graph) {
  for (const Node* n : graph->nodes())
    for (const Edge* e : n->out_edges())
      if (e->IsControlEdge()) control_edges_.insert(Key(n, e->dst()));
}

uint64_t GraphRewriter::Key(const Node* src, const Node* dst) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(src->id())) << 32) |
         static_cast<uint32_t>(dst->id());
}

bool GraphRewriter::HasControlEdge(const Node* src, const Node* dst) const {
  return control_edges_.count(Key(src, dst)) > 0;
}

void GraphRewriter::AddControlEdge(Node* src, Node* dst) {
  if (!control_edges_.insert(Key(src, dst)).second) return;
  graph_->AddControlEdge(src, dst);
  touched_.insert(dst->id());
}

void GraphRewriter::RemoveEdge(const Edge* edge) {
  if (edge->IsControlEdge()) control_edges_.erase(Key(edge->src(), edge->dst()));
  touched_.insert(edge->dst()->id());
  graph_->RemoveEdge(edge);
}

void GraphRewriter::MoveOutEdges(Node* from, Node* to) {
  const std::vector<const Edge*> edges = from->out_edges();  // copy: edited below
  for (const Edge* e : edges) {
    Node* dst = e->dst();
    const int src_output = e->src_output(), dst_input = e->dst_input();
    RemoveEdge(e);
    if (src_output == kControlSlot) {
      AddControlEdge(to, dst);
    } else {
      graph_->AddEdge(to, src_output, dst, dst_input);
    }
  }
}

void GraphRewriter::Bypass(Node* node, Node* src, int src_port) {
  const std::vector<const Edge*> edges = node->out_edges();  // copy: edited below
  for (const Edge* e : edges) {
    Node* dst = e->dst();
    const bool control = e->IsControlEdge();
    const int dst_input = e->dst_input();
    RemoveEdge(e);
    if (control) {
      if (src != nullptr) AddControlEdge(src, dst);
    } else {
      graph_->AddEdge(src, src_port, dst, dst_input);
    }
  }
  RemoveNode(node);
}

void GraphRewriter::RemoveNode(Node* node) {
  // Its out-edges' destinations lose an input; its in-edges' sources only
  // lose an output, which their NodeDefs do not list.
  const std::vector<const Edge*> out = node->out_edges();
  for (const Edge* e : out) RemoveEdge(e);
  for (const Edge* e : node->in_edges())
    if (e->IsControlEdge()) control_edges_.erase(Key(e->src(), node));
  graph_->RemoveNode(node);
}

int GraphRewriter::Finish() {
  int rewritten = 0;
  for (int id : touched_) {
    Node* n = graph_->FindNodeId(id);
    if (n == nullptr) continue;
    Graph::WriteInputs(*n, n->mutable_def());
    ++rewritten;
  }
  touched_.clear();
  return rewritten;
}

}  // namespace af
