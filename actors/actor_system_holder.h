// The process's CAF actor system: created on first use, shared by every
// session and server of the process, shut down when the last user lets go.
#pragma once

#include <memory>

#include <caf/fwd.hpp>

namespace af::actors {

// The running system (with the network middleman and every message type
// registered), creating it if no one holds it. Callers must terminate the
// actors they spawned before dropping the last reference, because the
// system's destructor waits for them; and must never drop it from an actor
// thread.
std::shared_ptr<caf::actor_system> AcquireActorSystem();

}  // namespace af::actors
