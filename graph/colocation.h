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
//  - while loops: every node of a loop frame (the Enter nodes, the body,
//    the condition, Merge/Switch/NextIteration/LoopCond, the Exits) and of
//    the frames nested in it joins one group. Cross-device loops need
//    loop-control nodes in every partition; until they exist a loop runs
//    on one device.
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

// Loop frame of every node: 0 for the root (outside any loop), otherwise
// a frame index; frames nest (parents[f] is f's enclosing frame, parents[0]
// = 0). Found by walking from nodes without inputs: an Enter's successors
// are in the frame named by its `frame_name` inside the Enter's frame, an
// Exit's successors in the parent of the Exit's frame, any other node's
// successors in its own frame.
struct LoopFrames {
  std::vector<int> frame_of;  // node id -> frame index
  std::vector<int> parents;   // frame index -> enclosing frame index
};
LoopFrames ComputeLoopFrames(const Graph& g);

}  // namespace af
