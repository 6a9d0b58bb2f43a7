// Rewriting a graph for one step signature (whitepaper §4.2, "Partial
// Execution"): fed tensors come from `_Arg` nodes, fetched tensors go to
// `_Retval` nodes, and everything the fetches and targets do not need is
// pruned away.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace af {

struct StepSignature {
  std::vector<std::string> feeds;    // "name:port" ("name" means port 0)
  std::vector<std::string> fetches;  // "name:port"
  std::vector<std::string> targets;  // node names run for their effects
};

// In place on `g`:
//  - feed i ("a:p") becomes node `_Arg` (T = base type of a:p, index = i);
//    every consumer of a:p reads the _Arg instead. When `a` is a
//    Placeholder its outgoing control edges move to the _Arg as well.
//  - fetch j becomes node `_Retval` (T, index = j) reading the tensor, or
//    reading the feed's _Arg when the same tensor is fed.
//  - nodes not needed by a _Retval or a target are removed: reverse
//    reachability over data and control edges, which stops at fed tensors
//    because their edges were moved. While loops stay whole: the back edge
//    NextIteration -> Merge keeps the loop body and condition, and the Exit
//    nodes of every loop switch that is kept are kept too.
// Errors are INVALID_ARGUMENT naming the offending feed, fetch or target:
// unknown node, malformed name, port out of range, a tensor fed twice, or a
// fed tensor consumed as a reference.
Status RewriteGraphForExecution(Graph* g, const StepSignature& signature);

// Copies `in` and rewrites the copy; `in` is left untouched.
Status PruneForExecution(const Graph& in, const StepSignature& signature,
                         std::unique_ptr<Graph>* out);

// Removes every node from which no node in `roots` is reachable along
// data and control edges (keeping loop Exits, as above). Returns the number
// of nodes removed.
int PruneForReverseReachability(Graph* g, const std::vector<Node*>& roots);

}  // namespace af
