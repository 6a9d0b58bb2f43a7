#include "actors/actor_system_holder.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>

#include "actors/interfaces.h"
#include "actors/peer_auth.h"

namespace af::actors {
namespace {

class RuntimeConfig : public caf::actor_system_config {
 public:
  RuntimeConfig() {
    load<caf::io::middleman>();
    RegisterMessageTypes(*this);
    RegisterStatusErrors(*this);  // refusals render as "UNAUTHENTICATED: ..."
    // One scheduler thread per core (CAF's default is at least 4, which
    // oversubscribes small machines and slows every hand-off).
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    set("scheduler.max-threads", std::max(2, cores));
    // An idle scheduler thread polls briefly, then sleeps on a condition
    // variable that new work from outside the system wakes. CAF's middle
    // phase (many 50 us sleeps nothing can interrupt) would put its wake-up
    // latency on every Run from a client thread.
    set("work-stealing.aggressive-poll-attempts", 1000);
    set("work-stealing.moderate-poll-attempts", 0);
    // No automatic connections: servers that a session introduces to each
    // other are connected by one of them dialing the other at OpenSession
    // (actors/worker/peer_connections.h). With automatic connections both
    // dialed at once, and a first step's tensors going both ways between
    // them were sometimes lost.
    set("middleman.enable-automatic-connections", false);
  }
};

std::mutex g_mu;
std::weak_ptr<caf::actor_system> g_system;

}  // namespace

std::shared_ptr<caf::actor_system> AcquireActorSystem() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (auto existing = g_system.lock()) return existing;
  struct Owned {
    RuntimeConfig config;
    caf::actor_system system{config};
  };
  auto owned = std::make_shared<Owned>();
  std::shared_ptr<caf::actor_system> system(owned, &owned->system);
  g_system = system;
  return system;
}

}  // namespace af::actors
