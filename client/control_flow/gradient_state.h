// What AddSymbolicGradients knows about the forward graph's loops while it
// builds gradients through them: the frame of every forward node (from
// the graph as it stood when the gradients started), the nodes the
// gradients add to forward frames (stack pushes, iteration counters), and
// each loop's structure. One state serves a top-level call and the
// gradient loops nested inside it.
#pragma once

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "control-flow/frame_analysis.h"
#include "control-flow/while_loop_structure.h"
#include "core/status.h"

namespace af {

struct ControlFlowGradState {
  FrameAnalysis frames;
  int first_new_id = 0;  // nodes from this id on were added by the gradients
  // Nodes the gradients put into forward frames: id -> the frame their
  // outputs are read in.
  std::unordered_map<int, int> added_forward;

  bool IsForward(const Node* n) const { return n->id() < first_new_id; }
  bool IsAddedForward(const Node* n) const { return added_forward.count(n->id()) != 0; }
  // -1 for nodes the gradients added on the backward side.
  int NodeFrame(const Node* n) const;
  int OutputFrame(const Node* n) const;
  // The loop whose frame an Enter opens or an Exit leaves.
  Status LoopOfEnter(const Graph& g, const Node* enter, const WhileLoopStructure** loop);
  Status LoopOfExit(const Graph& g, const Node* exit, const WhileLoopStructure** loop);

 private:
  Status Loop(const Graph& g, int frame, const WhileLoopStructure** loop);
  std::map<int, std::unique_ptr<WhileLoopStructure>> loops_;
};

// Restricts a gradient computation to the body of one loop (used by the
// loop's gradient for the sub-problem "one iteration backwards").
struct GradientFrame {
  ControlFlowGradState* state = nullptr;
  int home_frame = 0;
  const WhileLoopStructure* loop = nullptr;  // whose body this is
};

// AddSymbolicGradients over the nodes of `frame`'s home frame only; xs
// without a gradient stay invalid (the loop gradient fills them).
Status AddSymbolicGradientsInFrame(const Scope& scope, const std::vector<Output>& ys,
                                   const std::vector<Output>& xs,
                                   const std::vector<Output>& grad_ys,
                                   const GradientFrame& frame, std::vector<Output>* grad_xs);

// The gradient of a whole while loop: a backward loop that runs as many
// iterations as the forward one did, in reverse, reading the forward
// values it needs from stacks the forward loop fills. `exit_grads` has one
// entry per loop variable (invalid: none); fills one gradient per variable
// (for its Enter's input; invalid for non-differentiable ones) and per
// invariant Enter flagged in `invariant_needed`.
Status BuildWhileLoopGradient(const Scope& scope, ControlFlowGradState* state,
                              const WhileLoopStructure& loop,
                              const std::vector<Output>& exit_grads,
                              const std::vector<bool>& invariant_needed,
                              std::vector<Output>* variable_grads,
                              std::vector<Output>* invariant_grads);

}  // namespace af
