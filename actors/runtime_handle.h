// RuntimeHandle: the actor runtime of one session, seen from plain C++
// threads (client/, tools/). Behind it: the process's actor system, a
// master actor, this process's worker actor with its device actors, and
// connections to remote workers. No CAF in this header.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/resource_mgr.h"
#include "core/session_stats.h"
#include "core/status.h"
#include "core/step_traffic.h"
#include "core/tensor.h"
#include "graph/optimizer_options.h"
#include "proto/graph.pb.h"
#include "proto/step_stats.pb.h"
#include "runtime/step_plan.h"

namespace af {

// A worker process the session needs: its address and, when a cluster
// spec named it, the task it must be ("/job:ps/replica:0/task:1").
struct RemoteTask {
  std::string address;  // "host:port"
  std::string task;     // empty: whatever task serves there
};

struct RuntimeOptions {
  int num_cpu_devices = 1;     // local devices /job:localhost/replica:0/task:0/device:CPU:i
  int num_gpu_devices = -1;    // local GPUs (-1: every GPU of the process)
  int threads_per_device = 0;  // 0: the machine's cores shared among the devices
  // Worker processes (started with `actorflow server`).
  std::vector<RemoteTask> remote_tasks;
  // "af://host:port": the session's master runs in that server, which
  // reaches `remote_tasks` (empty: the tasks of its own cluster) and its
  // own devices; this process keeps no devices. Empty: the master runs in
  // this process.
  std::string target;
  // The cluster secret (core/cluster_secret.h) this process proves to every
  // task, and requires of their workers pushing to its own; empty: none.
  std::string cluster_secret;
  // Bound on the startup rendezvous: connecting to every task (retried with
  // backoff, since tasks of a cluster start in any order) and discovering
  // their devices.
  std::chrono::milliseconds setup_timeout{10000};
  // Failure detection (actors/master/master_actor.h HealthCheckOptions).
  std::chrono::milliseconds heartbeat_interval{250};
  std::chrono::milliseconds worker_lost_after{1500};
  // Stall inspector of the in-process worker (actors/worker/worker_actor.h).
  std::chrono::milliseconds stall_warning_after{10000};
  std::function<void(const std::string&)> stall_log;
  // The graph passes of the session's step plans (graph/optimizer.h).
  OptimizerOptions optimizer = OptimizerOptions::ProcessDefault();
};

class RuntimeHandle {
 public:
  using Clock = std::chrono::steady_clock;

  static Status Create(const RuntimeOptions& options, std::unique_ptr<RuntimeHandle>* out);
  ~RuntimeHandle();  // closes
  RuntimeHandle(const RuntimeHandle&) = delete;
  RuntimeHandle& operator=(const RuntimeHandle&) = delete;

  // Every device of the session: local ones first, then each remote
  // worker's.
  const std::vector<DeviceAttributes>& devices() const;

  Status Extend(const tensorflow::GraphDef& graph, Clock::time_point deadline);
  // Safe from many threads at once; each call is one step. A non-null
  // `step_stats` traces the step: it gets every device's node times. A
  // non-null `traffic` gets what the step moved between processes.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, Clock::time_point deadline,
             tensorflow::StepStats* step_stats = nullptr, StepTraffic* traffic = nullptr);
  // Resets `containers` (empty: the default container) on every device of
  // every worker; lists what the containers hold.
  Status ResetContainers(const std::vector<std::string>& containers, Clock::time_point deadline);
  Status ListContainers(std::vector<ContainerListing>* out, Clock::time_point deadline);
  Status GetStats(SessionStats* out, Clock::time_point deadline);
  // Cancels running steps, closes the session on every worker and stops
  // the actors. Later calls fail with FAILED_PRECONDITION.
  Status Close(Clock::time_point deadline);

 private:
  struct Impl;
  explicit RuntimeHandle(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace af
