#include "actors/actor_system_holder.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/uniform_type_info_map.hpp>

#include "actors/embedding.h"
#include "actors/interfaces.h"
#include "actors/transport/peer_auth.h"

namespace af::actors {
namespace {

class RuntimeConfig : public caf::actor_system_config {
 public:
  RuntimeConfig() {
    load<caf::io::middleman>();
    // Connections of a cluster with a secret run over mutual TLS
    // (actors/transport/cluster_tls.h).
    load<caf::openssl::manager>();
    // What an embedding application's config gets too: message types, the
    // error category (refusals render as "UNAUTHENTICATED: ..."), no
    // automatic connections.
    RegisterActorflowTypes(*this);
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
  }
};

std::mutex g_mu;
std::weak_ptr<caf::actor_system> g_system;
// The application's system (UseActorSystem): an alias of a token the
// holder owns, so that its use count says whether anything still holds
// the system the application will destroy.
std::shared_ptr<caf::actor_system> g_embedded;

// What RegisterActorflowTypes arranged, seen on the running system.
Status CheckEmbeddable(caf::actor_system& system) {
  if (!system.has_middleman()) {
    return errors::FailedPrecondition(
        "UseActorSystem: the system has no middleman; call "
        "cfg.load<caf::io::middleman>() before creating it");
  }
  if (system.types().portable_name(0, &typeid(wire::RunStepRequest)) != "af.RunStepRequest") {
    return errors::FailedPrecondition(
        "UseActorSystem: Actorflow's message types are not registered; call "
        "RegisterActorflowTypes(cfg) before creating the system");
  }
  // See RegisterActorflowTypes: servers introduced to each other must not both dial.
  if (caf::get_or(system.config(), "middleman.enable-automatic-connections", false)) {
    return errors::FailedPrecondition(
        "UseActorSystem: middleman.enable-automatic-connections must be false");
  }
  return Status::OK();
}

}  // namespace

Status UseActorSystem(caf::actor_system& system) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_embedded) {
    if (g_embedded.get() == &system) return Status::OK();
    return errors::FailedPrecondition("UseActorSystem: another application system is in use");
  }
  if (!g_system.expired()) {
    return errors::FailedPrecondition(
        "UseActorSystem: Actorflow's own actor system is already running (a Session or "
        "server exists); call UseActorSystem before creating any");
  }
  AF_RETURN_IF_ERROR(CheckEmbeddable(system));
  g_embedded = std::shared_ptr<caf::actor_system>(std::make_shared<char>(0), &system);
  return Status::OK();
}

Status ReleaseActorSystem() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_embedded && g_embedded.use_count() > 1) {
    return errors::FailedPrecondition(
        "ReleaseActorSystem: the application system is still held by ",
        g_embedded.use_count() - 1,
        " Actorflow object(s): sessions, embedded runtimes or queue actors");
  }
  g_embedded.reset();
  return Status::OK();
}

std::shared_ptr<caf::actor_system> CurrentActorSystem() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_embedded) return g_embedded;
  return g_system.lock();
}

std::shared_ptr<caf::actor_system> AcquireActorSystem() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_embedded) return g_embedded;
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
