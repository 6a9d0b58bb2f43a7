#include "runtime/step_plan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <unordered_set>

#include "control-flow/partition_loop_control.h"
#include "core/device_name.h"
#include "core/logging.h"
#include "core/node_def_util.h"
#include "graph/function_inlining.h"
#include "graph/graph_def_import.h"
#include "graph/partition.h"
#include "graph/placement_settings.h"
#include "graph/placer.h"
#include "graph/recv_scheduling.h"
#include "runtime/constant_evaluator.h"

namespace af {

std::string StepSignatureKey(const StepSignature& signature) {
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  std::string key;
  for (const auto& part :
       {sorted(signature.feeds), sorted(signature.fetches), sorted(signature.targets)}) {
    for (const auto& name : part) {
      key += name;
      key += ',';
    }
    key += '|';
  }
  return key;
}

namespace {

// Renumbers the partition's _Arg or _Retval nodes from step-wide indices to
// local ones and records where each step-wide index went.
Status Localize(tensorflow::GraphDef* graph, const std::string& op, int partition,
                std::vector<TensorLocation>* locations, int* count) {
  std::vector<std::pair<int64_t, tensorflow::NodeDef*>> nodes;
  for (auto& node : *graph->mutable_node()) {
    if (node.op() != op) continue;
    int64_t index = 0;
    AF_RETURN_IF_ERROR(GetNodeAttr(node, "index", &index));
    nodes.emplace_back(index, &node);
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  int local = 0;
  for (auto& [global, node] : nodes) {
    if (global < 0 || global >= static_cast<int64_t>(locations->size()))
      return errors::Internal("node '", node->name(), "' has ", op, " index ", global,
                              " outside the step's ", locations->size());
    (*locations)[global] = TensorLocation{partition, local};
    SetAttr(node, "index", static_cast<int64_t>(local));
    ++local;
  }
  *count = local;
  return Status::OK();
}

// Fed and fetched nodes keep their names and stay (TensorFlow's rule for
// its optimizers), and so do targets.
std::unordered_set<std::string> PreservedNames(const StepSignature& signature) {
  std::unordered_set<std::string> names;
  auto node_of = [](const std::string& tensor) { return tensor.substr(0, tensor.find(':')); };
  for (const std::string& t : signature.feeds) names.insert(node_of(t));
  for (const std::string& t : signature.fetches) names.insert(node_of(t));
  for (const std::string& t : signature.targets) names.insert(node_of(t));
  return names;
}

// Which cut tensors cross as bfloat16: float32 ones between CPU devices of
// two processes (a GPU may lack the casts), matching the pattern if any.
Status Bfloat16TransferRule(
    const OptimizerOptions& optimizer, std::optional<std::regex>* pattern,
    std::function<bool(const std::string&, const std::string&, const std::string&)>* rule) {
  if (!optimizer.bfloat16_transfer_pattern.empty()) {
    try {
      pattern->emplace(optimizer.bfloat16_transfer_pattern);
    } catch (const std::regex_error& e) {
      return errors::InvalidArgument("bfloat16_transfer_pattern '",
                                     optimizer.bfloat16_transfer_pattern,
                                     "' is not a regular expression: ", e.what());
    }
  }
  const std::regex* compiled = pattern->has_value() ? &**pattern : nullptr;
  *rule = [compiled](const std::string& tensor, const std::string& src, const std::string& dst) {
    DeviceName a, b;
    if (!ParseDeviceName(src, &a).ok() || !ParseDeviceName(dst, &b).ok()) return false;
    if (a.type != "CPU" || b.type != "CPU") return false;
    if (a.job == b.job && a.replica == b.replica && a.task == b.task) return false;
    return compiled == nullptr || std::regex_match(tensor, *compiled);
  };
  return Status::OK();
}

// Runs one of the plan's own passes (those outside OptimizeGraph) and
// reports it like the optimizer's.
Status TimedPass(const char* name, Graph* graph, std::vector<PassReport>* reports,
                 const std::function<Status(PassStats*)>& pass) {
  PassReport report;
  report.pass = name;
  report.nodes_before = graph->num_nodes();
  report.start_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const auto start = std::chrono::steady_clock::now();
  AF_RETURN_IF_ERROR(pass(&report.stats));
  report.micros = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  report.nodes_after = graph->num_nodes();
  reports->push_back(std::move(report));
  return Status::OK();
}

// One evaluator for every plan: it keeps its CPU device.
const ConstantEvaluator& CpuConstantEvaluator() {
  static const ConstantEvaluator* evaluator = new ConstantEvaluator(MakeCpuConstantEvaluator());
  return *evaluator;
}

}  // namespace

Status BuildStepPlan(const Graph& graph, const StepSignature& signature,
                     const std::vector<DeviceAttributes>& devices, const CostModel* cost_model,
                     StepPlan* out, const OptimizerOptions& optimizer) {
  std::unique_ptr<Graph> pruned;
  AF_RETURN_IF_ERROR(PruneForExecution(graph, signature, &pruned));
  std::vector<PassReport> optimizer_passes;
  // Not an optimization: calls have no kernel, so this runs with the
  // optimizer off too. After pruning, so only called bodies are copied.
  if (HasFunctionCalls(*pruned)) {
    AF_RETURN_IF_ERROR(
        TimedPass("function_inlining", pruned.get(), &optimizer_passes, [&](PassStats* report) {
          InlineStats stats;
          AF_RETURN_IF_ERROR(InlineFunctionCalls(pruned.get(), &stats));
          report->nodes_added = stats.nodes_added;
          report->nodes_rewritten = stats.calls_inlined;
          return Status::OK();
        }));
  }
  if (optimizer.enabled()) {
    PassContext context;
    context.preserved = PreservedNames(signature);
    context.evaluate = CpuConstantEvaluator();
    std::vector<PassReport> passes;
    AF_RETURN_IF_ERROR(OptimizeGraph(pruned.get(), optimizer, context, &passes));
    for (PassReport& p : passes) optimizer_passes.push_back(std::move(p));
  }

  std::vector<DeviceInfo> device_infos;
  std::map<std::string, uint64_t> incarnations;
  for (const DeviceAttributes& d : devices) {
    device_infos.push_back(DeviceInfo{d.name, d.type});
    incarnations[d.name] = d.incarnation;
  }
  PlacerOptions placer_options;
  placer_options.cost_model = cost_model;
  placer_options.allow_soft_placement = SoftDevicePlacement();
  AF_RETURN_IF_ERROR(PlaceGraph(pruned.get(), device_infos, placer_options));
  if (LogDevicePlacement()) {
    AF_LOG(INFO) << "Device placement:\n" << DescribeDevicePlacement(*pruned);
  }
  if (optimizer.enabled() && optimizer.do_recv_scheduling) {
    AF_RETURN_IF_ERROR(
        TimedPass("recv_scheduling", pruned.get(), &optimizer_passes, [&](PassStats* stats) {
          RecvSchedulingOptions options;
          options.min_bytes = optimizer.recv_scheduling_min_bytes;
          options.cost_model = cost_model;
          options.resend = optimizer.recv_scheduling_resend;
          RecvSchedulingStats held;
          AF_RETURN_IF_ERROR(ScheduleRecvs(pruned.get(), options, &held));
          stats->nodes_added = held.held + held.resent;
          stats->nodes_rewritten = held.held + held.resent;
          return Status::OK();
        }));
  }

  PartitionOptions partition_options;
  partition_options.device_incarnation = [&incarnations](const std::string& device) {
    auto it = incarnations.find(device);
    return it == incarnations.end() ? uint64_t{0} : it->second;
  };
  std::optional<std::regex> bfloat16_pattern;
  if (optimizer.bfloat16_transfer) {
    AF_RETURN_IF_ERROR(
        Bfloat16TransferRule(optimizer, &bfloat16_pattern, &partition_options.bfloat16_transfer));
  }
  std::map<std::string, tensorflow::GraphDef> partitions;
  AF_RETURN_IF_ERROR(PartitionGraph(*pruned, partition_options, &partitions));
  // Here rather than in PartitionGraph: it needs control-flow/, which
  // depends on graph/.
  AF_RETURN_IF_ERROR(AddLoopControl(*pruned, partition_options, &partitions));

  StepPlan plan;
  plan.optimizer_passes = std::move(optimizer_passes);
  plan.feeds.assign(signature.feeds.size(), TensorLocation{});
  plan.fetches.assign(signature.fetches.size(), TensorLocation{});
  for (auto& [device, graph_def] : partitions) {
    PartitionPlan partition;
    partition.device = device;
    partition.graph = std::move(graph_def);
    const int index = static_cast<int>(plan.partitions.size());
    AF_RETURN_IF_ERROR(Localize(&partition.graph, "_Arg", index, &plan.feeds, &partition.num_args));
    AF_RETURN_IF_ERROR(
        Localize(&partition.graph, "_Retval", index, &plan.fetches, &partition.num_retvals));
    plan.partitions.push_back(std::move(partition));
  }
  *out = std::move(plan);
  return Status::OK();
}

Status BuildStepPlan(const tensorflow::GraphDef& graph_def, const StepSignature& signature,
                     const std::vector<DeviceAttributes>& devices, const CostModel* cost_model,
                     StepPlan* out, const OptimizerOptions& optimizer) {
  Graph graph;
  AF_RETURN_IF_ERROR(ImportGraphDef(graph_def, &graph));
  return BuildStepPlan(graph, signature, devices, cost_model, out, optimizer);
}

}  // namespace af
