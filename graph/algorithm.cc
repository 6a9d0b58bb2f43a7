#include "graph/algorithm.h"

#include <algorithm>
#include <string>

namespace af {

namespace {

// Edges leaving NextIteration close a loop; they are the only ones allowed
// to point backwards, so ordering ignores them.
bool IsBackEdge(const Edge* e) { return e->src()->IsNextIteration(); }

// Every node still pending has an in-edge from another pending node, so
// walking such edges backwards must revisit a node; the revisited stretch
// is a cycle. Returns its nodes in edge direction, for the error message.
std::vector<Node*> FindCycle(const Graph& g, const std::vector<int>& pending) {
  Node* start = nullptr;
  for (Node* n : g.nodes()) {
    if (pending[n->id()] > 0) {
      start = n;
      break;
    }
  }
  std::vector<Node*> path;
  std::vector<int> position(g.num_node_ids(), -1);
  for (Node* cur = start; cur != nullptr;) {
    if (position[cur->id()] >= 0) {
      std::vector<Node*> cycle(path.begin() + position[cur->id()], path.end());
      std::reverse(cycle.begin(), cycle.end());
      return cycle;
    }
    position[cur->id()] = static_cast<int>(path.size());
    path.push_back(cur);
    Node* next = nullptr;
    for (const Edge* e : cur->in_edges()) {
      if (!IsBackEdge(e) && pending[e->src()->id()] > 0) {
        next = e->src();
        break;
      }
    }
    cur = next;
  }
  return path;  // unreachable for a consistent graph; still names the nodes
}

}  // namespace

Status TopologicalOrder(const Graph& g, std::vector<Node*>* order) {
  order->clear();
  order->reserve(g.num_nodes());
  std::vector<int> pending(g.num_node_ids(), 0);
  for (Node* n : g.nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!IsBackEdge(e)) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) order->push_back(n);
  }
  // `order` doubles as the ready queue: nodes before `next` are done.
  for (size_t next = 0; next < order->size(); ++next) {
    for (const Edge* e : (*order)[next]->out_edges()) {
      if (IsBackEdge(e)) continue;
      if (--pending[e->dst()->id()] == 0) order->push_back(e->dst());
    }
  }
  if (static_cast<int>(order->size()) == g.num_nodes()) return Status::OK();

  const std::vector<Node*> cycle = FindCycle(g, pending);
  if (cycle.empty()) return errors::Internal("topological order left nodes but found no cycle");
  std::string path;
  for (Node* n : cycle) path += "'" + n->name() + "' (" + n->type_string() + ") -> ";
  path += "'" + cycle.front()->name() + "'";
  order->clear();
  return errors::InvalidArgument("node '", cycle.front()->name(),
                                 "' is on a cycle that does not pass through a NextIteration node: ",
                                 path);
}

Status ValidateNoIllegalCycles(const Graph& g) {
  std::vector<Node*> order;
  return TopologicalOrder(g, &order);
}

std::vector<bool> ReachableFrom(const Graph& g, const std::vector<const Node*>& starts,
                                bool forward) {
  std::vector<bool> seen(g.num_node_ids(), false);
  std::vector<const Node*> stack;
  for (const Node* n : starts) {
    if (seen[n->id()]) continue;
    seen[n->id()] = true;
    stack.push_back(n);
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : forward ? n->out_edges() : n->in_edges()) {
      const Node* next = forward ? e->dst() : e->src();
      if (seen[next->id()]) continue;
      seen[next->id()] = true;
      stack.push_back(next);
    }
  }
  return seen;
}

}  // namespace af
