// The worker actor's bookkeeping: sessions opened by masters, registered
// partitions, and the steps it knows about.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <caf/actor_addr.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/interfaces.h"
#include "actors/worker/fault_hooks.h"
#include "actors/worker/peer_router.h"
#include "actors/worker/push_outbox.h"
#include "actors/worker/direct_steps.h"
#include "actors/worker/step_context.h"
#include "actors/worker/step_registry.h"
#include "core/memory_budget.h"

namespace af::actors {

class DataPlane;

struct WorkerSession {
  caf::actor master;
  // Heartbeat watch of a remote master (0: not watched).
  std::chrono::milliseconds master_lost_after{0};
  std::chrono::steady_clock::time_point last_heartbeat;
  std::shared_ptr<const PeerRouter> router;
  std::unordered_set<int64_t> handles;
  // What its steps may hold on this worker's devices (null: no limit).
  std::shared_ptr<MemoryBudget> memory_budget;
};

struct RegisteredGraph {
  int64_t session_id = 0;
  int device = 0;  // index into the worker's devices
  int32_t num_args = 0;
  int32_t num_retvals = 0;
};

struct WorkerStep {
  std::shared_ptr<StepContext> context;
  int64_t session_id = 0;
  bool has_run = false;  // RunGraph arrived (else only pushes or an abort)
  std::unordered_map<std::string, uint64_t> chunk_bytes;  // of tensors arriving in chunks
  caf::typed_response_promise<wire::RunGraphResponse> promise;
  // Asked by the direct step path: the reply goes back by it (the
  // request's correlation id), not through `promise`.
  bool direct = false;
  uint64_t correlation = 0;
};

struct WorkerState {
  std::string task_name;  // "/job:J/replica:R/task:T"
  // Drawn at start; every device of the process carries it, so a restarted
  // task is a different incarnation to its masters.
  uint64_t incarnation = 0;
  bool watching_masters = false;  // a watch_atom tick is pending
  std::chrono::milliseconds stall_warning_after{0};
  std::function<void(const std::string&)> stall_log;
  std::string cluster_secret;  // empty: no peer checks (actors/transport/peer_auth.h)
  std::chrono::milliseconds max_step{0};  // 0: steps run as long as their master lets them
  int64_t session_memory_limit = 0;       // bytes per session (0: no limit)
  std::vector<wire::DeviceInfo> devices;
  std::vector<device_actor> device_actors;
  std::vector<container_actor> container_actors;  // parallel to device_actors
  std::shared_ptr<const LocalDeviceNames> local_names;
  std::unordered_map<int64_t, WorkerSession> sessions;
  std::unordered_map<int64_t, RegisteredGraph> graphs;  // by handle
  int64_t next_handle = 1;
  // Every step this worker knows, shared with the direct step path.
  std::shared_ptr<StepRegistry> registry;
  // Steps whose RunGraph came to this actor, or whose chunks arrive here.
  std::unordered_map<int64_t, WorkerStep> steps;
  std::shared_ptr<DirectSteps> direct;  // the direct step path's side here
  // The routers' push outboxes, by id, for the flush requests (weak: a
  // session's router owns its outboxes).
  std::unordered_map<uint64_t, std::weak_ptr<PushOutbox>> outboxes;
  uint64_t next_outbox = 1;
  master_service_actor master_service;  // null: this worker opens no master sessions
  std::shared_ptr<DataPlane> data_plane;  // null: large tensors cross in chunks
  std::shared_ptr<const FaultHooks> faults;  // null: no injected faults
  static inline const char* name = "af.worker";
};

}  // namespace af::actors
