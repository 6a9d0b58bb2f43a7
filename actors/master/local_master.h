// The master a client of this process talks to when the master runs here:
// this process's worker (spawned here, with its data plane when the tasks
// are real processes and the $ACTORFLOW_FAULTS of this task) and the
// remote tasks (connected here), under one master actor. Sessions
// (actors/runtime_handle.cc) and embedded runtimes (actors/embedding.cc)
// start theirs this way.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "actors/interfaces.h"
#include "actors/master/master_actor.h"
#include "actors/runtime_handle.h"
#include "actors/worker/worker_actor.h"
#include "core/status.h"

namespace af::actors {

struct LocalMasterOptions {
  // The in-process worker; its data plane and fault injector are set here.
  WorkerOptions worker;
  std::vector<RemoteTask> remote_tasks;
  std::chrono::milliseconds setup_timeout{10000};
  HealthCheckOptions health;
  // Cached steps of this process's devices run on the asking thread
  // (actors/local_step.h); null: every step goes through the worker actor.
  std::shared_ptr<LocalPlanCache> local_plans;
  OptimizerOptions optimizer = OptimizerOptions::ProcessDefault();
};

// On error, whatever was spawned is in *worker / *master for the caller to
// stop.
Status StartLocalMaster(caf::actor_system& system, LocalMasterOptions options,
                        worker_actor* worker, master_actor* master);

}  // namespace af::actors
