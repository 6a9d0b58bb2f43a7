// Static frame analysis: which while-loop frame every node of a graph runs
// in. Enter nodes open a child frame (named by their frame_name attr) for
// their consumers; Exit nodes return their consumers to the parent frame.
// The executor lays out pending counts and input slots per frame from this.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace af {

struct FrameDesc {
  std::string name;         // "" for the root frame
  int parent = -1;          // index into the frames vector; -1 for the root
  int parallel_iterations = 1;
  int num_enters = 0;       // Enter nodes that feed this frame
  std::vector<int> nodes;   // node ids living in this frame
};

struct FrameAnalysis {
  std::vector<FrameDesc> frames;   // frames[0] is the root frame
  std::vector<int> frame_of_node;  // by node id; -1 for removed ids
  // For Enter nodes, the frame their outputs enter (by node id; else -1).
  std::vector<int> child_frame_of_enter;
};

// Every error is INVALID_ARGUMENT. Errors about an edge name both the
// consumer and the producer, their ops and their frames (the root frame is
// written "the root frame", others "frame '<name>'"), and say how the graph
// should have crossed the loop boundary: a data or control edge into a loop
// not through an Enter, out of a loop not through an Exit, between sibling
// loops, or a NextIteration fed from another frame. Also rejected: Enters
// of one frame entering from different parent frames (naming both Enters),
// an Exit with no enclosing loop, a _Retval (a fetch) inside a loop, an
// Enter without frame_name or with parallel_iterations < 1, and nodes
// reachable only through a back edge.
Status AnalyzeFrames(const Graph& graph, FrameAnalysis* out);

// Whole-graph checks for a graph as the user wrote it (before pruning and
// partitioning): everything AnalyzeFrames rejects, plus a loop frame with a
// NextIteration but no LoopCond, which could never stop iterating. Meant to
// run where a GraphDef enters a session (Extend), so that a malformed loop
// fails there with a message instead of at the first Run, or as a hang.
Status ValidateFrames(const Graph& graph);

}  // namespace af
