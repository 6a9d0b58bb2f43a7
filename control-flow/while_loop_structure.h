// The nodes of one while loop, found from the graph alone: TensorFlow 1's
// loops (and WhileLoop's) have, per loop variable, Enter -> Merge <-
// NextIteration, Merge -> Switch(pred = LoopCond), Switch:1 -> Identity
// (what the body reads), Switch:0 -> Exit; loop invariants enter through
// constant Enters. Gradients treat a loop as one unit through this.
#pragma once

#include <string>
#include <vector>

#include "control-flow/frame_analysis.h"
#include "core/status.h"
#include "graph/graph.h"

namespace af {

struct WhileLoopVariable {
  Node* enter = nullptr;
  Node* merge = nullptr;
  Node* next_iteration = nullptr;
  Node* switch_node = nullptr;
  Node* identity = nullptr;  // the body's view of the variable
  Node* exit = nullptr;      // nullptr when the loop has no Exit for it
};

struct WhileLoopStructure {
  int frame = 0;   // index in the FrameAnalysis
  std::string frame_name;
  int parallel_iterations = 10;
  Node* loop_cond = nullptr;
  std::vector<WhileLoopVariable> variables;
  std::vector<Node*> invariant_enters;  // is_constant Enters

  bool IsOwnStructure(const Node* n) const;  // Merge, Switch, NextIteration, LoopCond, Exit
  const WhileLoopVariable* VariableOfExit(const Node* exit) const;
};

// UNIMPLEMENTED naming the frame when the loop is not shaped as above (for
// instance a Switch:1 read without an Identity).
Status FindWhileLoop(const Graph& graph, const FrameAnalysis& frames, int frame,
                     WhileLoopStructure* out);

}  // namespace af
