// Colocation groups for the placer: nodes that must share a device,
// found by union-find over
//  - `_class` attrs: every node listing "loc:@X" joins node X and every
//    other node listing "loc:@X" (other values are ignored, as in
//    TensorFlow; X need not exist after pruning);
//  - reference edges: a node reading a reference input (Assign, the
//    ref-consuming optimizer ops, RefSwitch, ...) joins the node producing
//    it, so a variable sits with the ops that mutate it in place; a
//    resource handle joins every consumer of it. A ref output read as a
//    plain value (VariableV2 -> Identity) is an ordinary copy and does not
//    colocate;
//  - while-loop variables: a loop's Merge (one with a NextIteration
//    input) joins its Enter and NextIteration inputs, the Switches reading
//    it and the Exits of those Switches. A Merge must not wait on a Recv
//    of its own Enter or NextIteration (the Recv would be gated by the
//    frame it starts). The loop's condition and body are free: a frame may
//    span devices, and control-flow/partition_loop_control.h gives each
//    device its share of the loop control.
#pragma once

#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace af {

struct ColocationGroups {
  // Node id -> group index; -1 for ids of removed nodes.
  std::vector<int> group_of;
  // Group index -> its nodes in id order. Groups are numbered by their
  // lowest node id.
  std::vector<std::vector<Node*>> members;
};

// INVALID_ARGUMENT naming the node when a `_class` attr is not a list of
// strings.
Status ComputeColocationGroups(const Graph& g, ColocationGroups* out);

}  // namespace af
