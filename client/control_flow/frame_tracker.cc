#include "client/control_flow/frame_tracker.h"

#include "core/node_def_util.h"

namespace af {

namespace {

std::string Label(const Node* n) {
  return "'" + n->name() + "' (op '" + n->type_string() + "')";
}

std::string OutputLabel(const Edge* e) {
  return "'" + e->src()->name() + ":" + std::to_string(e->src_output()) + "' (op '" +
         e->src()->type_string() + "')";
}

}  // namespace

FrameTracker::FrameTracker() { frames_.push_back(Frame{"", kUnknown, false}); }

int FrameTracker::NewManagedFrame(const std::string& name, int parent) {
  frames_.push_back(Frame{name, parent, true});
  return static_cast<int>(frames_.size()) - 1;
}

std::string FrameTracker::Describe(int frame) const {
  if (frame == kRootFrame) return "the root frame";
  return "frame '" + frames_[frame].name + "'";
}

bool FrameTracker::IsAncestorOrSelf(int ancestor, int frame) const {
  for (int f = frame; f != kUnknown; f = frames_[f].parent)
    if (f == ancestor) return true;
  return false;
}

void FrameTracker::Grow(int id) {
  if (id >= static_cast<int>(node_frame_.size())) {
    node_frame_.resize(id + 1, kUnknown);
    output_frame_.resize(id + 1, kUnknown);
  }
}

int FrameTracker::NodeFrame(const Node* n) const {
  return n->id() < static_cast<int>(node_frame_.size()) ? node_frame_[n->id()] : kUnknown;
}

int FrameTracker::OutputFrame(const Node* n) const {
  return n->id() < static_cast<int>(output_frame_.size()) ? output_frame_[n->id()] : kUnknown;
}

void FrameTracker::SetFrames(const Node* n, int node_frame, int output_frame) {
  Grow(n->id());
  node_frame_[n->id()] = node_frame;
  output_frame_[n->id()] = output_frame;
}

int FrameTracker::FrameOfEnter(const Node* enter, int context) {
  std::string name;
  if (!GetNodeAttr(enter->def(), "frame_name", &name).ok()) return kUnknown;
  for (int f = static_cast<int>(frames_.size()) - 1; f > kRootFrame; --f)
    if (frames_[f].name == name && frames_[f].parent == context) return f;
  frames_.push_back(Frame{name, context, false});
  return static_cast<int>(frames_.size()) - 1;
}

Status FrameTracker::Place(Node* n, int context) {
  int frame = context;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) continue;
    const int from = OutputFrame(e->src());
    if (from == kUnknown || frame == kUnknown || from == frame) continue;
    // An enclosing frame's tensor: WhileLoop routes it in through an Enter.
    if (IsAncestorOrSelf(from, frame)) continue;
    if (IsAncestorOrSelf(frame, from)) {
      bool crosses_managed = false;
      for (int f = from; f != frame; f = frames_[f].parent)
        crosses_managed = crosses_managed || frames_[f].managed;
      if (crosses_managed)
        return errors::InvalidArgument(
            "node ", Label(n), " in ", Describe(frame), " reads ", OutputLabel(e),
            ", a tensor of ", Describe(from), " inside it: a loop's tensors leave it only "
            "through its outputs (the Exit nodes WhileLoop returns)");
      frame = from;  // joins a hand-built frame, as the executor would run it
      continue;
    }
    return errors::InvalidArgument("node ", Label(n), " in ", Describe(frame), " reads ",
                                   OutputLabel(e), " of ", Describe(from),
                                   ", a frame beside it: tensors cross loop frames only "
                                   "through Enter and Exit nodes");
  }
  for (const Edge* e : n->in_edges()) {
    if (!e->IsControlEdge()) continue;
    const int from = OutputFrame(e->src());
    if (from == kUnknown || frame == kUnknown || from == frame) continue;
    if (!frames_[frame].managed && !frames_[from].managed) continue;
    return errors::InvalidArgument(
        "node ", Label(n), " in ", Describe(frame), " has a control input from '",
        e->src()->name(), "' (op '", e->src()->type_string(), "') in ", Describe(from),
        ": control dependencies do not cross loop frames; make the loop's inputs depend on '",
        e->src()->name(), "', or depend on a tensor of the loop's own frame");
  }
  int output_frame = frame;
  if (frame != kUnknown && n->IsEnter()) output_frame = FrameOfEnter(n, frame);
  if (frame != kUnknown && n->IsExit()) output_frame = frames_[frame].parent;
  SetFrames(n, frame, output_frame);
  return Status::OK();
}

}  // namespace af
