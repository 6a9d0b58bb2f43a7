// WorkerServer: this process as a worker of other processes' sessions, and
// the master of sessions that target it. It runs a worker actor (devices
// /job:J/replica:0/task:T/device:CPU:i) with a master service and
// publishes it on host:port for masters and clients to connect to. No CAF
// here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actors/runtime_handle.h"
#include "core/status.h"

namespace af {

struct WorkerServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port (see WorkerServer::port())
  std::string job = "worker";
  int task = 0;
  int num_cpu_devices = 1;
  int num_gpu_devices = -1;    // -1: every GPU of the process; 0: none
  int threads_per_device = 0;  // 0: the machine's cores shared among the devices
  int64_t stall_warning_ms = 10000;  // stall inspector (0: off); reports go to stderr
  // Sessions may also target this server ("af://host:port"): their master
  // runs here and, unless the session names its tasks, reaches these (the
  // other tasks of the server's cluster) beside this server's own devices.
  std::vector<RemoteTask> cluster_tasks;
  // The cluster secret (core/cluster_secret.h): only processes that prove
  // it, and the peers their sessions name, may use this server. Empty:
  // anyone who reaches the port may, so `host` must be a loopback address.
  std::string cluster_secret;
  // Injected stragglers and message faults (core/fault_injection/
  // fault_spec.h): `actorflow server --faults SPEC`; empty: the spec in
  // $ACTORFLOW_FAULTS, if any. A malformed spec fails Start.
  std::string faults;
  // The longest a step may run on this server, and the longest deadline a
  // client of its master service may ask for (0: no limit): `actorflow
  // server --max_step_secs S`. A step past it is cancelled between nodes.
  double max_step_secs = 0;
  // Bytes one session's steps may hold on this server's devices at once
  // (`--session_memory_limit`); an allocation over it fails with
  // RESOURCE_EXHAUSTED naming the node and the session. 0: no limit.
  int64_t session_memory_limit = 0;
  // An af:// client whose session heartbeats stop this long (a stopped or
  // hung process) has its session closed (`--client_timeout_secs`; 0: never).
  double client_timeout_secs = 60;
};

class WorkerServer {
 public:
  static Status Start(const WorkerServerOptions& options, std::unique_ptr<WorkerServer>* out);
  ~WorkerServer();  // stops
  WorkerServer(const WorkerServer&) = delete;
  WorkerServer& operator=(const WorkerServer&) = delete;

  uint16_t port() const;
  const std::vector<std::string>& device_names() const;
  // "host:port" of the worker's data plane for large tensors; empty when
  // it has none (ACTORFLOW_DATA_PLANE=off, or it could not listen).
  const std::string& data_address() const;
  // Stops the worker; sessions using it see it go away.
  void Stop();

 private:
  struct Impl;
  explicit WorkerServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `actorflow server --join af://host:port`: asks the server at `target`
// ("host:port") for a place in its cluster for a task of options->job that
// will listen at options->host:options->port, and sets options->task and
// options->cluster_tasks from the answer (actors/master/
// cluster_membership.h). Start the server with them at once: the cluster
// already counts this task.
Status JoinCluster(const std::string& target, WorkerServerOptions* options,
                   std::chrono::milliseconds timeout);

}  // namespace af
