// Worker actor: one per process (task). It owns the process's device
// actors, registers partitions on them, runs steps (one RunGraph per step
// from the master, fanned out to the devices), routes tensors whose Recv
// lives in another process (one push message per tensor) and aborts and
// cleans up steps.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/interfaces.h"
#include "actors/worker/local_direct_path.h"
#include "actors/worker/local_partitions.h"

namespace af::faults {
class FaultInjector;
}

namespace af::actors {

class DataPlane;

struct WorkerOptions {
  std::string job = "localhost";
  int replica = 0;
  int task = 0;
  int num_cpu_devices = 1;
  // GPU devices after the CPUs: -1 every GPU of the process (CUDA's, or
  // the emulated ones of ACTORFLOW_EMULATED_GPUS), 0 none, N at most N.
  int num_gpu_devices = -1;
  int threads_per_device = 0;  // 0: the cores shared among the devices
  // The in-process session's table of registered executors, which its
  // client threads read (actors/local_step.h); null for a server's worker.
  std::shared_ptr<LocalPartitionTable> local_partitions;
  // Where the worker publishes its direct step path for the client's
  // threads (actors/remote_step.h; null: nobody asks).
  std::shared_ptr<LocalDirectPathSlot> direct_path;
  // Stall inspector: a Recv of a running step that waits longer than this
  // is reported once, naming the step, the tensor and the device it waits
  // for (0: off). `stall_log` gets the line (null: stderr).
  std::chrono::milliseconds stall_warning_after{10000};
  std::function<void(const std::string&)> stall_log;
  // The cluster secret (actors/transport/peer_auth.h): the worker answers the
  // handshake with it and admits only local actors, nodes that proved it
  // and the peers their sessions vouch for. Empty: no checks (a server
  // without a secret listens on loopback only).
  std::string cluster_secret;
  // A server's master service (actors/master/master_service.h), created
  // with the worker's own handle; clients that target this process open
  // their sessions through the worker's published handle. Null: none.
  std::function<master_service_actor(caf::actor_system&, worker_actor)> make_master_service;
  // The worker's data plane for large tensors (actors/worker/data_plane.h),
  // started by whoever starts the worker; the worker advertises its address
  // with its devices and stops it when it terminates. Null: none.
  std::shared_ptr<DataPlane> data_plane;
  // Injected stragglers and message faults of this task (core/
  // fault_injection/): the worker delays its RunGraph steps, and delays,
  // drops or duplicates the tensors it sends to other processes. It logs
  // what is injected when it starts, the counts now and then and when it
  // stops, to `fault_log` (null: stderr). Null: none.
  std::shared_ptr<faults::FaultInjector> faults;
  std::function<void(const std::string&)> fault_log;
  // A step running longer is aborted (DEADLINE_EXCEEDED naming the limit);
  // zero: no limit.
  std::chrono::milliseconds max_step{0};
  // Bytes each session's steps may hold on the worker's devices at once
  // (core/memory_budget.h); zero: no limit.
  int64_t session_memory_limit = 0;
};

worker_actor SpawnWorkerActor(caf::actor_system& system, const WorkerOptions& options);

}  // namespace af::actors
