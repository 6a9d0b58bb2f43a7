#include "client/control_flow/gradient_state.h"

namespace af {

int ControlFlowGradState::NodeFrame(const Node* n) const {
  if (IsForward(n)) return frames.frame_of_node[n->id()];
  auto it = added_forward.find(n->id());
  return it == added_forward.end() ? -1 : it->second;
}

int ControlFlowGradState::OutputFrame(const Node* n) const {
  if (!IsForward(n)) {
    auto it = added_forward.find(n->id());
    return it == added_forward.end() ? -1 : it->second;
  }
  const int frame = frames.frame_of_node[n->id()];
  if (n->IsEnter()) return frames.child_frame_of_enter[n->id()];
  if (n->IsExit()) return frame <= 0 ? frame : frames.frames[frame].parent;
  return frame;
}

Status ControlFlowGradState::Loop(const Graph& g, int frame, const WhileLoopStructure** loop) {
  auto& slot = loops_[frame];
  if (!slot) {
    auto found = std::make_unique<WhileLoopStructure>();
    AF_RETURN_IF_ERROR(FindWhileLoop(g, frames, frame, found.get()));
    slot = std::move(found);
  }
  *loop = slot.get();
  return Status::OK();
}

Status ControlFlowGradState::LoopOfEnter(const Graph& g, const Node* enter,
                                         const WhileLoopStructure** loop) {
  return Loop(g, frames.child_frame_of_enter[enter->id()], loop);
}

Status ControlFlowGradState::LoopOfExit(const Graph& g, const Node* exit,
                                        const WhileLoopStructure** loop) {
  return Loop(g, frames.frame_of_node[exit->id()], loop);
}

}  // namespace af
