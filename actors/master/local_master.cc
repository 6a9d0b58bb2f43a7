#include "actors/master/local_master.h"

#include <string>
#include <utility>

#include <caf/actor_system.hpp>

#include "actors/cluster_connect.h"
#include "actors/worker/data_plane.h"
#include "core/cluster_spec.h"
#include "core/fault_injection/fault_injector.h"

namespace af::actors {

Status StartLocalMaster(caf::actor_system& system, LocalMasterOptions options,
                        worker_actor* worker, master_actor* master) {
  WorkerOptions& local = options.worker;
  // $ACTORFLOW_FAULTS configures every process of a cluster, this one too
  // (its worker is /job:localhost/replica:0/task:0, which selectors name).
  AF_RETURN_IF_ERROR(faults::FaultInjector::Create(
      "",
      "/job:" + local.job + "/replica:" + std::to_string(local.replica) +
          "/task:" + std::to_string(local.task),
      &local.faults));
  // (Tasks of a virtual cluster share this process: no data plane.)
  if (!options.remote_tasks.empty() && !IsVirtualAddress(options.remote_tasks.front().address)) {
    local.data_plane = DataPlane::Start(
        ClientDataPlaneHost(options.remote_tasks.front().address, !local.cluster_secret.empty()),
        local.cluster_secret);
  }
  // A cached step runs on the caller's thread, past the worker actor that
  // injects compute delays; with those, every step takes the worker's path.
  if (local.faults && !local.faults->spec().compute.is_none()) options.local_plans = nullptr;
  const std::string secret = local.cluster_secret;
  *worker = SpawnWorkerActor(system, local);
  std::vector<MasterWorker> workers{MasterWorker{*worker, "local", false}};
  std::vector<worker_actor> remotes;
  AF_RETURN_IF_ERROR(ConnectToTasks(system, options.remote_tasks,
                                    std::chrono::steady_clock::now() + options.setup_timeout,
                                    &remotes, secret));
  for (size_t i = 0; i < remotes.size(); ++i)
    workers.push_back(MasterWorker{std::move(remotes[i]), options.remote_tasks[i].address, true});
  *master = SpawnMasterActor(system, std::move(workers), std::move(options.local_plans),
                             options.health, secret, local.data_plane, options.optimizer);
  return Status::OK();
}

}  // namespace af::actors
