// What the graph optimizer's passes share (whitepaper §5): the context a
// pass runs in, what it reports, and the rules every pass keeps. Passes run
// on a step's graph after pruning and before placement (graph/optimizer.h):
// feeds are `_Arg` nodes, fetches `_Retval` nodes, targets plain nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace af {

// Runs a small graph of constants and pure ops on the host's CPU and
// returns its `_Retval` values in index order. The runtime provides it
// (runtime/constant_evaluator.h); graph/ itself runs no kernels.
using ConstantEvaluator = std::function<Status(const tensorflow::GraphDef& graph,
                                               int num_retvals, std::vector<Tensor>* out)>;

struct PassContext {
  // Nodes that keep their name and stay in the graph: the step's targets
  // and the nodes whose outputs it fetches.
  std::unordered_set<std::string> preserved;
  // A folded constant larger than this stays computed (TensorFlow's
  // max_folded_constant_in_bytes).
  int64_t max_constant_bytes = int64_t{10} * 1024 * 1024;
  // Null: constant folding does nothing.
  ConstantEvaluator evaluate;
};

struct PassStats {
  int nodes_removed = 0;
  int nodes_added = 0;      // e.g. the Const nodes folding makes
  int nodes_rewritten = 0;  // rewired or changed in place
};

// _Arg and _Retval nodes and preserved names: never removed, renamed or
// replaced.
bool IsPreservedNode(const Node& node, const PassContext& context);

// By node id: whether a node may run inside a while loop's frame (anything
// reachable from an Enter; conservative: what follows a loop counts too).
// Passes leave those alone: a value inside a frame exists per iteration.
std::vector<bool> NodesInLoops(const Graph& graph);

// Whether a pass may touch `node` at all: a stateless op outside loops and
// not preserved. Stateful ops (variables, queues, random ops, Send/Recv)
// are never merged, folded or removed by value.
bool IsPureNode(const Node& node);

}  // namespace af
