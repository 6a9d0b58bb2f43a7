// Variables on parameter servers, as TensorFlow's replica_device_setter:
// a device function (Scope::WithDeviceFunction) that sends variables to
// /job:ps tasks and every other op to the worker's own device. A
// variable's initializer, slots and update ops are colocated with it, so
// they follow it to its ps task.
//
//   ReplicaDeviceSetter setter(ReplicaDeviceSetterOptions{.ps_tasks = 2,
//       .worker_device = "/job:worker/task:1"});
//   Scope model = root.WithDeviceFunction(setter.function());
//   Variable w(model.WithOpName("w"), ...);   // /job:ps/task:0
//   Variable b(model.WithOpName("b"), ...);   // /job:ps/task:1
//   auto y = ops::MatMul(model, x, w);         // /job:worker/task:1
//   std::cout << setter.LoadReport();          // bytes per ps task
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/scope.h"
#include "core/cluster_spec.h"
#include "core/status.h"

namespace af {

enum class PsStrategy {
  // Task 0, 1, ..., N-1, 0, ... in creation order (TensorFlow's default).
  kRoundRobin,
  // Each variable to the ps task holding the fewest bytes so far
  // (TensorFlow's GreedyLoadBalancingStrategy with byte_size_load_fn):
  // round robin can put every large variable on one task.
  kGreedyByBytes,
};

struct ReplicaDeviceSetterOptions {
  int ps_tasks = 0;  // 0: none (everything goes to worker_device)
  std::string ps_device = "/job:ps";
  std::string worker_device = "/job:worker";
  // The device an op requested (its scope's device) fills the fields the
  // setter's choice leaves open, and wins where both are set; false: an op
  // that requested a job keeps its request unchanged.
  bool merge_devices = true;
  PsStrategy strategy = PsStrategy::kRoundRobin;
  // Op types that hold state and so live on the ps tasks (empty:
  // TensorFlow's list: VariableV2, VarHandleOp, the mutable hash tables).
  std::vector<std::string> ps_ops;
};

class ReplicaDeviceSetter {
 public:
  explicit ReplicaDeviceSetter(ReplicaDeviceSetterOptions options);
  // ps_tasks from the cluster's "ps" job (TensorFlow's cluster= argument).
  static Status FromCluster(const ClusterSpec& cluster, ReplicaDeviceSetterOptions options,
                            std::unique_ptr<ReplicaDeviceSetter>* out);

  // The device function; it shares this setter's state (the strategy's
  // position and the bytes per task), so keep the setter alive while ops
  // are built.
  DeviceFunction function() const;

  // Bytes of the variables placed on each ps task so far, and how many.
  const std::vector<int64_t>& bytes_per_task() const;
  const std::vector<int>& variables_per_task() const;
  // One line per ps task: "/job:ps/task:0: 2 variables, 3.1 MiB (62%)".
  std::string LoadReport() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// The cluster's ps job alone (a worker whose model lives on the ps tasks
// computes in its own process, so its session needs no other task).
Status PsTasksOnly(const ClusterSpec& cluster, ClusterSpec* ps_only);

// Whether ops of this type hold state that lives on ps tasks (TensorFlow's
// STANDARD_PS_OPS: variables and mutable hash tables).
bool IsStandardPsOp(std::string_view op_type);

// Bytes a stateful op holds: its dtype's size times its shape's elements
// (0 when the shape is unknown or the op has neither attr).
int64_t VariableBytes(const tensorflow::NodeDef& node);

}  // namespace af
