// Removing what a step cannot observe: nodes whose results reach nothing
// that is fetched, targeted or stateful, Identity nodes that only forward a
// value on the device it is already on, and NoOps that only relay one
// control dependency.
#pragma once

#include "core/status.h"
#include "graph/graph.h"
#include "graph/optimizer_pass.h"

namespace af {

// Removes every node from which no `_Retval`, no preserved node and no node
// with an effect (a stateful op, or one taking a reference or resource
// input, which may write through it) is reachable along data and control edges. Such a node
// that survived pruning was asked for, so it and what feeds it stay. Loops
// stay whole (PruneForReverseReachability).
Status RemoveDeadNodes(Graph* graph, const PassContext& context, PassStats* stats);

// Removes, outside while loops and never a preserved node:
//  - an Identity with no control inputs whose input is not a reference and
//    whose requested and assigned devices equal its input's source's (an
//    Identity that moves a value between devices stays): its consumers read
//    its input, its control successors depend on the input's source;
//  - a NoOp with at most one control input: its control successors depend
//    on that input instead (or on nothing when it has none).
// An Identity reading a Switch keeps its control successors: a Switch
// sends a live control signal even down the branch not taken, the Identity
// does not, so it stays when it has any.
Status RemoveIdentityChains(Graph* graph, const PassContext& context, PassStats* stats);


}  // namespace af
