#include "client/training/shard_replicas.h"

#include <algorithm>
#include <set>

#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/device_name.h"
#include "core/node_def_util.h"

namespace af {

namespace {

// The device a variable asked for; a slot left without one follows the
// variable it is colocated with ("_class": "loc:@var").
std::string RequestedDevice(const Graph& graph, const Node& node) {
  if (!node.def().device().empty()) return node.def().device();
  const auto found = node.def().attr().find("_class");
  if (found == node.def().attr().end()) return "";
  for (const std::string& entry : found->second.list().s()) {
    if (entry.rfind("loc:@", 0) != 0) continue;
    const Node* anchor = graph.FindNode(entry.substr(5));
    if (anchor != nullptr && anchor != &node) return anchor->def().device();
  }
  return "";
}

// "/job:ps/task:3" for a device on task 3 of `ps_job`; empty otherwise.
std::string PsTaskOf(const std::string& device, const std::string& ps_job) {
  DeviceName name;
  if (!ParseDeviceName(device, &name).ok()) return "";
  if (!name.has_job || name.job != ps_job || !name.has_task) return "";
  return "/job:" + ps_job + "/task:" + std::to_string(name.task);
}

int TaskIndex(const std::string& task) {
  return std::stoi(task.substr(task.rfind(':') + 1));
}

}  // namespace

Status ShardReplicas::Build(const Scope& scope, std::shared_ptr<ShardReplicas>* out,
                            const std::string& ps_job) {
  out->reset();
  // Variables by the ps task they live on.
  std::map<std::string, std::vector<Output>> by_task;
  for (const Output& v : GlobalVariables(scope)) {
    const std::string task = PsTaskOf(RequestedDevice(*scope.graph(), *v.node()), ps_job);
    if (!task.empty()) by_task[task].push_back(v);
  }
  if (by_task.size() < 2) return Status::OK();
  std::vector<std::string> tasks;
  for (const auto& [task, vars] : by_task) tasks.push_back(task);
  std::sort(tasks.begin(), tasks.end(),
            [](const std::string& a, const std::string& b) { return TaskIndex(a) < TaskIndex(b); });

  auto replicas = std::shared_ptr<ShardReplicas>(new ShardReplicas());
  const Scope s = scope.NewSubScope("shard_replicas");
  const std::vector<Operation> steps = scope.GetCollection(kGlobalStepCollection);
  const Output global_step =
      steps.empty() ? Output(ops::Const(s.WithOpName("no_global_step"),
                                        Input::Initializer(Tensor::Scalar<int64_t>(-1))))
                    : steps[0].output(0);
  std::vector<Operation> copies;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string& task = tasks[i];
    Shard& shard = replicas->shards_[task];
    shard.holder = tasks[(i + 1) % tasks.size()];
    const Scope on_holder = s.WithDevice(shard.holder);
    for (const Output& v : by_task[task]) {
      DataType dtype = DT_INVALID;
      AF_RETURN_IF_ERROR(GetNodeAttr(v.node()->def(), "dtype", &dtype)
                             .WithContext("replicating variable " + v.op().name()));
      // Unknown shape: the copy takes whatever shape the variable has.
      auto copy = ops::VariableV2(on_holder.WithOpName(v.op().name() + "/replica"),
                                  PartialTensorShape(), dtype);
      AF_RETURN_IF_ERROR(s.status());
      copies.push_back(ops::Assign(on_holder.ColocateWith(copy.operation)
                                       .WithOpName(v.op().name() + "/replica/refresh"),
                                   copy, v, ops::Assign::ValidateShape(false))
                           .operation);
      shard.restore_ops[v.op().name()] =
          ops::Assign(s.ColocateWith(v.op()).WithOpName(v.op().name() + "/replica/restore"), v,
                      copy)
              .operation;
    }
    const std::string index = std::to_string(TaskIndex(task));
    auto step_copy = ops::VariableV2(on_holder.WithOpName("replica_step/task_" + index),
                                     PartialTensorShape({}), DT_INT64);
    shard.step_copy = step_copy;
    shard.step_copy_ready = ops::IsVariableInitialized(
        on_holder.ColocateWith(step_copy.operation).WithOpName("replica_step/ready_" + index),
        step_copy);
    copies.push_back(ops::Assign(on_holder.ColocateWith(step_copy.operation)
                                     .WithOpName("replica_step/refresh_" + index),
                                 step_copy, global_step)
                         .operation);
  }
  replicas->refresh_ = ops::NoOp(s.WithOpName("refresh").WithControlDependencies(copies)).operation;
  AF_RETURN_IF_ERROR(s.status());
  *out = std::move(replicas);
  return Status::OK();
}

std::vector<std::string> ShardReplicas::tasks() const {
  std::vector<std::string> tasks;
  for (const auto& [task, shard] : shards_) tasks.push_back(task);
  return tasks;
}

Status ShardReplicas::RestoreLost(ClientSession& session, const std::vector<std::string>& missing,
                                  ReplicaRestore* result) const {
  *result = ReplicaRestore();
  // The shards that lost variables, with the copies' restores they need.
  std::map<std::string, std::vector<Operation>> lost;
  std::map<std::string, std::vector<std::string>> lost_names;
  for (const std::string& name : missing) {
    for (const auto& [task, shard] : shards_) {
      const auto found = shard.restore_ops.find(name);
      if (found == shard.restore_ops.end()) continue;
      lost[task].push_back(found->second);
      lost_names[task].push_back(name);
    }
  }
  if (lost.empty()) return Status::OK();
  // Which holders have a copy: a holder that died too, or never refreshed,
  // has none. Asked one holder at a time, so that one unreachable holder
  // does not hide the others' copies.
  std::vector<Operation> targets;
  for (const auto& [task, restores] : lost) {
    const Shard& shard = shards_.at(task);
    std::vector<Tensor> out;
    if (!session.Run({shard.step_copy_ready}, &out).ok() || !out[0].scalar<bool>()) continue;
    if (!session.Run({shard.step_copy}, &out).ok()) continue;
    ReplicaRestore::Shard restored;
    restored.task = task;
    restored.holder = shard.holder;
    restored.global_step = out[0].scalar<int64_t>();
    restored.variables = static_cast<int>(restores.size());
    result->shards.push_back(restored);
    targets.insert(targets.end(), restores.begin(), restores.end());
    result->restored.insert(result->restored.end(), lost_names[task].begin(),
                            lost_names[task].end());
  }
  if (targets.empty()) return Status::OK();
  Status s = session.Run({}, {}, targets, nullptr);
  if (!s.ok()) {
    *result = ReplicaRestore();
    return s.WithContext("restoring lost ps variables from their replicas");
  }
  return Status::OK();
}

std::string ShardReplicas::Describe(const ReplicaRestore& restore) {
  std::string out;
  for (const ReplicaRestore::Shard& shard : restore.shards) {
    if (!out.empty()) out += "; ";
    out += shard.task + " from " + shard.holder + " at global step " +
           std::to_string(shard.global_step) + " (" + std::to_string(shard.variables) +
           " variables)";
  }
  return out;
}

ShardReplicaHook::ShardReplicaHook(std::shared_ptr<ShardReplicas> replicas, int64_t every_n_steps)
    : replicas_(std::move(replicas)), every_n_steps_(std::max<int64_t>(every_n_steps, 1)) {}

Status ShardReplicaHook::AfterCreateSession(ClientSession& session) {
  steps_ = 0;
  return session.Run({}, {}, {replicas_->refresh_op()}, nullptr)
      .WithContext("refreshing the ps shards' replicas");
}

Status ShardReplicaHook::BeforeRun(SessionRunContext& context, SessionRunArgs* args) {
  if (++steps_ % every_n_steps_ == 0) args->targets.push_back(replicas_->refresh_op());
  return Status::OK();
}

}  // namespace af
