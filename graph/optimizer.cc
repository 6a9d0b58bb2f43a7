#include "graph/optimizer.h"

#include <chrono>
#include <sstream>

#include "graph/arithmetic_simplification.h"
#include "graph/common_subexpression.h"
#include "graph/constant_folding.h"
#include "graph/dead_node_removal.h"

namespace af {
namespace {

using PassFn = Status (*)(Graph*, const PassContext&, PassStats*);

struct PassEntry {
  const char* name;
  bool OptimizerOptions::*enabled;
  PassFn run;
};

// Identity chains first, so that CSE sees through them; dead nodes last,
// to sweep what the others left without consumers.
const PassEntry kPasses[] = {
    {"identity_chains", &OptimizerOptions::do_dead_node_removal, &RemoveIdentityChains},
    {"common_subexpression", &OptimizerOptions::do_common_subexpression_elimination,
     &EliminateCommonSubexpressions},
    {"constant_folding", &OptimizerOptions::do_constant_folding, &FoldConstants},
    {"arithmetic_simplification", &OptimizerOptions::do_arithmetic_simplification,
     &SimplifyArithmetic},
    {"dead_nodes", &OptimizerOptions::do_dead_node_removal, &RemoveDeadNodes},
};

}  // namespace

Status OptimizeGraph(Graph* graph, const OptimizerOptions& options, const PassContext& context,
                     std::vector<PassReport>* reports) {
  reports->clear();
  if (!options.enabled()) return Status::OK();
  PassContext pass_context = context;
  pass_context.max_constant_bytes = options.max_folded_constant_in_bytes;
  for (const PassEntry& pass : kPasses) {
    if (!(options.*pass.enabled)) continue;
    PassReport report;
    report.pass = pass.name;
    report.nodes_before = graph->num_nodes();
    report.start_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    const auto start = std::chrono::steady_clock::now();
    Status s = pass.run(graph, pass_context, &report.stats);
    report.micros = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (!s.ok()) return s.WithContext(std::string("graph optimizer pass ") + pass.name);
    report.nodes_after = graph->num_nodes();
    reports->push_back(std::move(report));
  }
  return Status::OK();
}

std::string DescribePasses(const std::vector<PassReport>& reports) {
  std::ostringstream out;
  for (const PassReport& r : reports) {
    out << r.pass << ": " << r.nodes_before << " -> " << r.nodes_after << " nodes ("
        << r.stats.nodes_removed << " removed, " << r.stats.nodes_added << " added, "
        << r.stats.nodes_rewritten << " rewritten) in " << r.micros << " us\n";
  }
  return out.str();
}

}  // namespace af
