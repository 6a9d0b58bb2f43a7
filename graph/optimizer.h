// The graph optimizer (whitepaper §5): the passes a step's graph goes
// through between pruning and placement, switchable per session like
// TensorFlow's OptimizerOptions (opt_level L1 runs them, L0 none), each
// reported with what it changed and its time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "graph/optimizer_options.h"
#include "graph/optimizer_pass.h"

namespace af {

// What one pass did to a step's graph.
struct PassReport {
  std::string pass;  // "constant_folding", ...
  int nodes_before = 0;
  int nodes_after = 0;
  PassStats stats;
  int64_t start_micros = 0;  // wall clock, as traces' all_start_micros
  int64_t micros = 0;
};

// Runs the enabled passes in order: Identity/NoOp chains, common
// subexpressions, constant folding, arithmetic simplification, dead nodes.
// `context` says what to preserve and how to evaluate constants. A pass
// that fails leaves the error naming it; the graph is then unusable.
Status OptimizeGraph(Graph* graph, const OptimizerOptions& options,
                     const PassContext& context, std::vector<PassReport>* reports);

// "constant_folding: 12 -> 7 nodes (5 removed, 1 added) in 35 us", one
// line per pass.
std::string DescribePasses(const std::vector<PassReport>& reports);

}  // namespace af
