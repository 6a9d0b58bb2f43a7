// GraphRewriter: the edits the optimizer's passes make, batched. A node
// that gains or loses many edges (a sink with thousands of control inputs)
// gets its NodeDef's input list rewritten once, when the pass finishes,
// not once per edge; whether a control edge exists is a hash lookup, not a
// walk over a node's edges. Both were quadratic on large graphs.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "graph/graph.h"

namespace af {

class GraphRewriter {
 public:
  explicit GraphRewriter(Graph* graph);
  GraphRewriter(const GraphRewriter&) = delete;
  GraphRewriter& operator=(const GraphRewriter&) = delete;

  // Every consumer of `from` reads `to` instead (same ports) and every
  // control successor of `from` waits on `to` (never twice); `from` keeps
  // no out-edges.
  void MoveOutEdges(Node* from, Node* to);
  // The data consumers of `node` read `src:src_port`, its control
  // successors wait on `src` (none when null), and `node` is removed.
  void Bypass(Node* node, Node* src, int src_port);
  void RemoveNode(Node* node);

  // Rewrites the NodeDef inputs of every node still in the graph whose
  // edges changed, and returns how many there were. Call once, last.
  int Finish();

 private:
  static uint64_t Key(const Node* src, const Node* dst);
  bool HasControlEdge(const Node* src, const Node* dst) const;
  void AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);

  Graph* graph_;
  std::unordered_set<uint64_t> control_edges_;  // Key(src, dst) of every control edge
  std::unordered_set<int> touched_;             // node ids whose inputs changed
};

}  // namespace af
