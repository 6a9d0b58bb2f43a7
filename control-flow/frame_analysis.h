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

// INVALID_ARGUMENT naming the node when a node would live in two frames, an
// Exit leaves the root frame, an Enter lacks frame_name, or Enters of one
// frame disagree on their parent frame.
Status AnalyzeFrames(const Graph& graph, FrameAnalysis* out);

}  // namespace af
