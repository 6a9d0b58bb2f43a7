// Master actor: one per session, in the client's process. It holds the
// session graph, turns each new step signature into a plan (prune, place,
// partition), registers the partitions with the workers owning their
// devices and caches all of it; then every Run is one RunGraph message per
// participating worker with a fresh step id. It never schedules nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/interfaces.h"

namespace af {
class LocalPlanCache;
}

namespace af::actors {

struct MasterWorker {
  worker_actor handle;
  std::string address;  // "local" or "host:port", for messages
  bool remote = false;  // monitored: its process may die
};

// With `local_plans`, cached steps whose partitions are all on the
// in-process worker are published there for the client's threads to run
// (actors/local_step.h).
master_actor SpawnMasterActor(caf::actor_system& system, std::vector<MasterWorker> workers,
                              std::shared_ptr<LocalPlanCache> local_plans = nullptr);

}  // namespace af::actors
