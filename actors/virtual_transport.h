// The resolver behind "virtual:<cluster>/<job>/<task>" addresses
// (actors/virtual_cluster.h), for the startup rendezvous
// (actors/cluster_connect.cc).
#pragma once

#include <string>

#include "actors/interfaces.h"
#include "core/status.h"

namespace af::actors {

// A handle on the task at `address` for one session: a small forwarding
// actor that applies the cluster's transport model to every message sent
// through it (the session's master and, via OpenSession, its peers send to
// it). UNAVAILABLE when no virtual cluster of that name runs in this
// process (yet: the rendezvous retries) or it has no such task.
Status ResolveVirtualTask(caf::actor_system& system, const std::string& address,
                          worker_actor* out);

}  // namespace af::actors
