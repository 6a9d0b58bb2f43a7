// FrameTracker: which loop frame every node built through a Scope lives in,
// kept while the graph is built so that a node mixing frames is refused
// when it is built (INVALID_ARGUMENT naming both nodes and both frames),
// not when a step runs. One tracker per graph, shared by its scopes.
//
// Frames made by WhileLoop are "managed": a node built in a loop body may
// read any tensor of the body's frame or of an enclosing frame (WhileLoop
// then routes it in through an Enter), but no tensor of a frame inside or
// beside its own. Frames of hand-built Enter nodes are not managed: a node
// reading one of their tensors simply joins that frame, as the executor
// would place it.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace af {

class FrameTracker {
 public:
  static constexpr int kRootFrame = 0;
  static constexpr int kUnknown = -1;

  FrameTracker();

  // A frame for a WhileLoop; its Enter nodes carry `name` as frame_name.
  int NewManagedFrame(const std::string& name, int parent);
  const std::string& name(int frame) const { return frames_[frame].name; }
  int parent(int frame) const { return frames_[frame].parent; }
  bool managed(int frame) const { return frames_[frame].managed; }
  // "frame 'while/while_context'" or "the root frame".
  std::string Describe(int frame) const;
  bool IsAncestorOrSelf(int ancestor, int frame) const;

  // The frame a node runs in, and the frame its outputs are read in (they
  // differ for Enter and Exit). kUnknown for nodes built around the tracker
  // (imported, or added to the graph directly).
  int NodeFrame(const Node* n) const;
  int OutputFrame(const Node* n) const;

  // Records where a node built in `context` runs, after checking its
  // inputs; the error names the node, the input and both frames.
  Status Place(Node* n, int context);
  // For nodes a builder adds with a known frame (Enters it inserts).
  void SetFrames(const Node* n, int node_frame, int output_frame);

 private:
  struct Frame {
    std::string name;
    int parent = kUnknown;
    bool managed = false;
  };
  int FrameOfEnter(const Node* enter, int context);
  void Grow(int id);

  std::vector<Frame> frames_;
  std::vector<int> node_frame_;    // by node id
  std::vector<int> output_frame_;  // by node id
};

}  // namespace af
