// Session: runs steps of a graph, in this process or across worker
// processes, as TensorFlow's C++ Session does.
//
//   std::unique_ptr<Session> session;
//   AF_RETURN_IF_ERROR(Session::Create(SessionOptions{}, &session));
//   AF_RETURN_IF_ERROR(session->Extend(graph_def));
//   std::vector<Tensor> out;
//   AF_RETURN_IF_ERROR(session->Run({{"x:0", x}}, {"y:0"}, {}, &out));
//
// Run may be called from many threads at once; each call is one step.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster_spec.h"
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

class RuntimeHandle;

struct SessionOptions {
  // Local CPU devices: /job:localhost/replica:0/task:0/device:CPU:0..N-1.
  int num_cpu_devices = 1;
  // Local GPU devices /job:localhost/replica:0/task:0/device:GPU:0..N-1:
  // -1 takes every GPU of the process (CUDA's, or ACTORFLOW_EMULATED_GPUS
  // emulated ones), 0 none.
  int num_gpu_devices = -1;
  // Threads of each device's pool; 0 shares the machine's cores among the
  // devices.
  int threads_per_device = 0;
  // Worker processes ("host:port") started with `actorflow server`; their
  // devices join the session's.
  std::vector<std::string> remote_workers;
  // Every task of a cluster (`actorflow server --cluster SPEC --job J --task T`)
  // joins the session's devices as /job:J/replica:0/task:T/device:CPU:N; the
  // master stays in this process. A server at a task's address that is
  // another task is INVALID_ARGUMENT.
  ClusterSpec cluster;
  // "af://host:port": the session's master runs in that `actorflow server`
  // (TensorFlow's grpc:// session target): this process sends only Extend,
  // Run and Close and gets the fetches back, and keeps no devices. The
  // server's master uses its own devices and those of `cluster` and
  // `remote_workers` when given (the target's own entry skipped), else
  // every task of the server's cluster. Empty: the master runs here.
  std::string target;
  // The file holding the cluster secret the servers require (`actorflow
  // server --secret_file`); empty: the file ACTORFLOW_SECRET_FILE names,
  // if any. A server that requires a secret this session lacks, or proves
  // another one, is UNAUTHENTICATED at Create.
  std::string cluster_secret_file;
  // Bound on the startup rendezvous: connecting to the workers (retried
  // with backoff while they start) and discovering their devices.
  int64_t setup_timeout_ms = 10000;
  // Failure detection: remote workers are probed every heartbeat_interval_ms
  // and declared lost (their steps fail with UNAVAILABLE naming the task)
  // after worker_lost_after_ms without an answer.
  int64_t heartbeat_interval_ms = 250;
  int64_t worker_lost_after_ms = 1500;
  // Stall inspector: a step of this process's worker whose Recv waits
  // longer than this is reported once (which tensor, from which device),
  // to `stall_log` or stderr. 0: off. Servers: `actorflow server
  // --stall_warning_ms`.
  int64_t stall_warning_ms = 10000;
  std::function<void(const std::string&)> stall_log;
  // Deadline of a Run or Extend without its own.
  int64_t default_timeout_ms = 60000;
  // The graph optimizer's passes (constant folding, common subexpressions,
  // arithmetic simplification, dead nodes) for every step of the session,
  // TensorFlow's OptimizerOptions: opt_level L0 turns them off. The default
  // is on, or what ACTORFLOW_OPTIMIZER says ("off", "off:fold,cse").
  OptimizerOptions optimizer = OptimizerOptions::ProcessDefault();
};

struct RunOptions {
  // 0: the session's default. A step past it fails with DEADLINE_EXCEEDED
  // and is aborted on every worker.
  int64_t timeout_ms = 0;
  // TensorFlow's RunOptions.TraceLevel values. Any level above NO_TRACE
  // records the step's software trace (every node's start, end, device and
  // thread, and the Send/Recv pairs) into RunMetadata::step_stats; there is
  // no hardware trace yet.
  // A fixed underlying type: any int may arrive (as in the proto), and the
  // range check below must not be undefined behaviour.
  enum TraceLevel : int { NO_TRACE = 0, SOFTWARE_TRACE = 1, HARDWARE_TRACE = 2, FULL_TRACE = 3 };
  TraceLevel trace_level = NO_TRACE;
};

// What a Run reports besides its outputs.
struct RunMetadata {
  // Per device, per node execution; empty unless the Run was traced
  // (client/chrome_trace.h turns it into a Chrome trace).
  tensorflow::StepStats step_stats;
  // What the step moved between processes, per pair of tasks (Sends,
  // feeds to and fetches from remote tasks), traced or not; empty for a
  // step that stayed in this process (core/step_traffic.h).
  StepTraffic traffic;
};

class Session {
 public:
  static Status Create(const SessionOptions& options, std::unique_ptr<Session>* out);
  ~Session();  // closes
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Adds nodes to the session graph. A node whose name is already taken
  // is INVALID_ARGUMENT and leaves the graph as it was.
  Status Extend(const tensorflow::GraphDef& graph);

  // Feeds "name:port" tensors, computes `fetches` ("name:port"; "name" means
  // port 0) and runs `targets` (node names) for their effects. `outputs`
  // gets one tensor per fetch, in order.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs);
  Status Run(const RunOptions& run_options,
             const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs);
  // `run_metadata` (may be null) gets the step's trace when
  // run_options.trace_level asks for one, and is cleared otherwise.
  Status Run(const RunOptions& run_options,
             const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* run_metadata);

  // Every device the session may place nodes on.
  const std::vector<DeviceAttributes>& ListDevices() const;

  // Clears the variable containers named (empty: the default container,
  // "localhost") on every device of the session, as TensorFlow's
  // Session::Reset. Containers are per process, so other sessions in the
  // same processes lose them too; a variable read afterwards is
  // FAILED_PRECONDITION until it is assigned again.
  Status Reset(const std::vector<std::string>& containers);
  // What every device's containers hold (device, container, resource
  // names), for diagnostics.
  Status ListContainers(std::vector<ContainerListing>* out);
  // What the session's master holds (graph, cached step plans); a
  // long-running job's should stop growing once every kind of step ran.
  Status GetStats(SessionStats* out);

  // Ends running steps (CANCELLED) and frees the session's state on every
  // worker. Later calls fail with FAILED_PRECONDITION.
  Status Close();

 private:
  Session(const SessionOptions& options, std::unique_ptr<RuntimeHandle> runtime);
  SessionOptions options_;
  std::unique_ptr<RuntimeHandle> runtime_;
};

}  // namespace af
