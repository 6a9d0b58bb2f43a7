// Graph traversals: topological order and cycle detection.
#pragma once

#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace af {

// Nodes in an order where every node comes after its inputs, ignoring the
// back edges that leave NextIteration nodes (the only legal cycles).
// INVALID_ARGUMENT naming nodes on the cycle if another cycle exists.
Status TopologicalOrder(const Graph& g, std::vector<Node*>* order);

// OK if every cycle passes through a NextIteration node.
Status ValidateNoIllegalCycles(const Graph& g);

// By node id: the nodes reachable from `starts` (themselves included) along
// out-edges, or along in-edges when `forward` is false; data and control
// edges alike.
std::vector<bool> ReachableFrom(const Graph& g, const std::vector<const Node*>& starts,
                                bool forward = true);

}  // namespace af
