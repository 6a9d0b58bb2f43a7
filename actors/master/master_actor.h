// Master actor: one per session, in the client's process. It holds the
// session graph, turns each new step signature into a plan (prune, place,
// partition), registers the partitions with the workers owning their
// devices and caches all of it; then every Run is one RunGraph message per
// participating worker with a fresh step id. It never schedules nodes.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/interfaces.h"
#include "graph/optimizer_options.h"

namespace af {
class LocalPlanCache;
}

namespace af::actors {

class DataPlane;

struct MasterWorker {
  worker_actor handle;
  std::string address;  // "local" or "host:port", for messages
  bool remote = false;  // monitored: its process may die
};

// Failure detection (whitepaper §3.3): the master probes every remote
// worker each `interval` and declares it lost when no answer came for
// `lost_after` — a dead process closes its connection and is noticed at
// once, a hung one (SIGSTOP, a partition) only this way. Workers close a
// remote master's sessions after max(10 s, 4 x lost_after) without a probe.
struct HealthCheckOptions {
  std::chrono::milliseconds interval{250};
  std::chrono::milliseconds lost_after{1500};
  // Gets a WorkerLost and a StepAborted (actors/health/health_events.h) for each
  // lost worker and aborted step (null: nobody listens). Embedding
  // applications subscribe through it (actors/embedding.h).
  caf::actor events;
};

// `cluster_secret`: what the master proves when it reconnects to a task
// that restarted (empty: none). With `local_plans`, cached steps whose partitions are all on the
// in-process worker are published there for the client's threads to run
// (actors/local_step.h).
// `optimizer`: the graph passes every step plan of the session goes
// through (graph/optimizer.h).
// `lane`: this process's data plane, which carries cached steps' RunGraphs
// to remote workers that have one (actors/worker/direct_steps.h; null:
// every RunGraph goes through CAF).
master_actor SpawnMasterActor(caf::actor_system& system, std::vector<MasterWorker> workers,
                              std::shared_ptr<LocalPlanCache> local_plans = nullptr,
                              HealthCheckOptions health = {},
                              std::string cluster_secret = {},
                              std::shared_ptr<DataPlane> lane = nullptr,
                              OptimizerOptions optimizer = OptimizerOptions::ProcessDefault());

}  // namespace af::actors
