// TensorFlow 2's functional control flow lowered to the dataflow control
// flow the executor runs (whitepaper §4.4): an If becomes Switches feeding
// calls of its two branch functions and Merges of their results; a While
// becomes a frame of its own (Enter, Merge, a call of its cond function,
// LoopCond, Switch, a call of its body function, NextIteration, Exit). The
// calls are then inlined like any other (graph/function_inlining.h), so
// branches and loop bodies are placed and partitioned like the rest.
#pragma once

#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace af {

// If, StatelessIf, While, StatelessWhile.
bool IsFunctionalControlFlow(const Node& node);

// Rewrites `node`; its name then stands for its results as before.
// `added` gets the ids of the nodes made, `calls` the function calls among
// them. UNIMPLEMENTED naming the node for a non-bool If condition or While
// cond result.
Status LowerFunctionalControlFlow(Graph* graph, Node* node, std::vector<int>* added,
                                  std::vector<Node*>* calls);

}  // namespace af
