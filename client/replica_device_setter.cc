#include "client/replica_device_setter.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <unordered_set>
#include <utility>

#include "core/device_name.h"
#include "core/node_def_util.h"

namespace af {
namespace {

// TensorFlow's STANDARD_PS_OPS.
const std::vector<std::string> kStandardPsOps = {
    "Variable",          "VariableV2",         "AutoReloadVariable",
    "MutableHashTable",  "MutableHashTableV2", "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2", "MutableDenseHashTable", "MutableDenseHashTableV2",
    "VarHandleOp"};

// Fields set in `requested` replace those of `chosen` (TensorFlow's
// DeviceSpec.merge_from: the op's own request wins).
std::string MergeRequest(const std::string& chosen, const std::string& requested) {
  DeviceName target, request;
  if (!ParseDeviceName(chosen, &target).ok()) return chosen;
  if (!ParseDeviceName(requested, &request).ok()) return requested;  // the placer names it
  if (request.has_job) target.has_job = true, target.job = request.job;
  if (request.has_replica) target.has_replica = true, target.replica = request.replica;
  if (request.has_task) target.has_task = true, target.task = request.task;
  if (request.has_type) target.has_type = true, target.type = request.type;
  if (request.has_id) target.has_id = true, target.id = request.id;
  return target.ToString();
}

std::string HumanBytes(int64_t bytes) {
  char text[32];
  if (bytes >= (int64_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else if (bytes >= 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024);
  } else {
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  }
  return text;
}

}  // namespace

struct ReplicaDeviceSetter::State {
  ReplicaDeviceSetterOptions options;
  std::unordered_set<std::string> ps_ops;
  int next_task = 0;  // round robin
  std::vector<int64_t> bytes;
  std::vector<int> variables;

  int ChooseTask(int64_t load) {
    int task = 0;
    if (options.strategy == PsStrategy::kRoundRobin) {
      task = next_task;
      next_task = (next_task + 1) % options.ps_tasks;
    } else {
      task = static_cast<int>(std::min_element(bytes.begin(), bytes.end()) - bytes.begin());
    }
    bytes[task] += load;
    ++variables[task];
    return task;
  }

  std::string Choose(const tensorflow::NodeDef& node) {
    const std::string& requested = node.device();
    DeviceName request;
    const bool parsed = ParseDeviceName(requested, &request).ok();
    if (!options.merge_devices && parsed && request.has_job) return requested;
    if (options.ps_tasks > 0 && ps_ops.count(node.op()) != 0) {
      DeviceName ps;
      if (!ParseDeviceName(options.ps_device, &ps).ok()) return options.ps_device;
      ps.has_task = true;
      ps.task = ChooseTask(VariableBytes(node));
      return MergeRequest(ps.ToString(), requested);
    }
    return MergeRequest(options.worker_device, requested);
  }
};

ReplicaDeviceSetter::ReplicaDeviceSetter(ReplicaDeviceSetterOptions options)
    : state_(std::make_shared<State>()) {
  State& st = *state_;
  st.options = std::move(options);
  st.options.ps_tasks = std::max(0, st.options.ps_tasks);
  const std::vector<std::string>& ops =
      st.options.ps_ops.empty() ? kStandardPsOps : st.options.ps_ops;
  st.ps_ops.insert(ops.begin(), ops.end());
  st.bytes.assign(st.options.ps_tasks, 0);
  st.variables.assign(st.options.ps_tasks, 0);
}

Status ReplicaDeviceSetter::FromCluster(const ClusterSpec& cluster,
                                        ReplicaDeviceSetterOptions options,
                                        std::unique_ptr<ReplicaDeviceSetter>* out) {
  const auto& jobs = cluster.jobs();
  if (std::find(jobs.begin(), jobs.end(), "ps") == jobs.end()) {
    return errors::InvalidArgument("ReplicaDeviceSetter: the cluster has no \"ps\" job");
  }
  int tasks = 0;
  for (const TaskAddress& task : cluster.AllTasks()) tasks += task.job == "ps" ? 1 : 0;
  options.ps_tasks = tasks;
  out->reset(new ReplicaDeviceSetter(std::move(options)));
  return Status::OK();
}

DeviceFunction ReplicaDeviceSetter::function() const {
  std::shared_ptr<State> state = state_;
  return [state](const tensorflow::NodeDef& node) { return state->Choose(node); };
}

const std::vector<int64_t>& ReplicaDeviceSetter::bytes_per_task() const { return state_->bytes; }
const std::vector<int>& ReplicaDeviceSetter::variables_per_task() const {
  return state_->variables;
}

std::string ReplicaDeviceSetter::LoadReport() const {
  const State& st = *state_;
  const int64_t total = std::accumulate(st.bytes.begin(), st.bytes.end(), int64_t{0});
  std::string report;
  for (int task = 0; task < st.options.ps_tasks; ++task) {
    DeviceName ps;
    (void)ParseDeviceName(st.options.ps_device, &ps);
    ps.has_task = true;
    ps.task = task;
    const int percent =
        total > 0 ? static_cast<int>((100 * st.bytes[task] + total / 2) / total) : 0;
    report += ps.ToString() + ": " + std::to_string(st.variables[task]) +
              (st.variables[task] == 1 ? " variable, " : " variables, ") +
              HumanBytes(st.bytes[task]) + " (" + std::to_string(percent) + "%)\n";
  }
  return report;
}

bool IsStandardPsOp(std::string_view op_type) {
  return std::find(kStandardPsOps.begin(), kStandardPsOps.end(), op_type) != kStandardPsOps.end();
}

int64_t VariableBytes(const tensorflow::NodeDef& node) {
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;
  if (!GetNodeAttr(node, "dtype", &dtype).ok() || !GetNodeAttr(node, "shape", &shape).ok()) {
    return 0;
  }
  if (!shape.IsFullyDefined()) return 0;
  int64_t elements = 1;
  for (int i = 0; i < shape.dims(); ++i) elements *= shape.dim_size(i);
  return elements * DataTypeSize(BaseType(dtype));
}

Status PsTasksOnly(const ClusterSpec& cluster, ClusterSpec* ps_only) {
  std::string flag = "ps=";
  for (int t : cluster.task_indices("ps")) {
    std::string address;
    AF_RETURN_IF_ERROR(cluster.Address("ps", t, &address));
    if (flag.size() > 3) flag += ",";
    flag += address;
  }
  return ClusterSpec::FromFlag(flag, ps_only);
}

}  // namespace af
