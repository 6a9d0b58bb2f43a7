#include "graph/optimizer_trace.h"

#include <string>

namespace af {

void AddOptimizerTrace(const std::vector<PassReport>& passes, tensorflow::StepStats* stats) {
  if (passes.empty()) return;
  tensorflow::DeviceStepStats* device = stats->add_dev_stats();
  device->set_device(kOptimizerTraceDevice);
  for (const PassReport& pass : passes) {
    tensorflow::NodeExecStats* node = device->add_node_stats();
    node->set_node_name(pass.pass);
    node->set_all_start_micros(pass.start_micros);
    node->set_op_start_rel_micros(0);
    node->set_op_end_rel_micros(pass.micros);
    node->set_all_end_rel_micros(pass.micros);
    node->set_all_start_nanos(pass.start_micros * 1000);
    node->set_op_start_rel_nanos(0);
    node->set_op_end_rel_nanos(pass.micros * 1000);
    node->set_all_end_rel_nanos(pass.micros * 1000);
    // The "<name> = <op>(<args>)" form of node labels, which Chrome traces
    // parse; the pass ran when the step's plan was made.
    node->set_timeline_label(pass.pass + " = GraphOptimizerPass(nodes " +
                             std::to_string(pass.nodes_before) + " -> " +
                             std::to_string(pass.nodes_after) + ", removed " +
                             std::to_string(pass.stats.nodes_removed) + ", added " +
                             std::to_string(pass.stats.nodes_added) + ", rewritten " +
                             std::to_string(pass.stats.nodes_rewritten) + ")");
  }
}

}  // namespace af
