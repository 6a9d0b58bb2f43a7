// Edge surgery the control-flow builders share: rerouting an input, and
// routing the inputs a builder function read from outside its frame or
// branch through Enter or Switch nodes.
#pragma once

#include <functional>
#include <vector>

#include "client/ops.h"
#include "core/status.h"
#include "graph/graph.h"

namespace af {

// Makes data input `dst_input` of `dst` read `src` instead (the NodeDef's
// input list follows the edges).
void ReplaceInput(Graph* g, Node* dst, int dst_input, const Output& src);
void AddControlInput(Graph* g, Node* src, Node* dst);
// Rewrites the NodeDef's input list from the node's edges.
void SyncNodeDefInputs(Node* n);

// Nodes with ids from `first_id` on whose tracked frame is `frame`: the
// nodes a builder function just added to that frame (deeper frames' nodes
// are routed by their own builders).
std::vector<Node*> NodesBuiltSince(const Graph& g, int first_id,
                                   const std::function<bool(const Node*)>& keep);

// For every data input of `nodes` that `is_inside` rejects, asks `route` for
// the tensor to read instead (route caches, so a tensor read twice is
// routed once); then every node left without any input gets a control
// input from `pivot`, so that it runs once per iteration or only in its
// branch.
using RouteFn = std::function<Status(const Output& outside, Output* routed)>;
Status RouteOutsideInputs(Graph* g, const std::vector<Node*>& nodes,
                          const std::function<bool(const Node*)>& is_inside,
                          const RouteFn& route, Node* pivot);

}  // namespace af
