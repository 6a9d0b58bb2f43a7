// The process's CAF actor system: created on first use, shared by every
// session and server of the process, shut down when the last user lets go.
#pragma once

#include <memory>

#include <caf/fwd.hpp>

#include "core/status.h"

namespace af::actors {

// The running system (with the network middleman and every message type
// registered), creating it if no one holds it. Callers must terminate the
// actors they spawned before dropping the last reference, because the
// system's destructor waits for them; and must never drop it from an actor
// thread.
std::shared_ptr<caf::actor_system> AcquireActorSystem();

// Embedding (actors/embedding.h): from now on AcquireActorSystem returns a
// non-owning handle to the application's `system`, which must have been
// configured with RegisterActorflowTypes. Fails while Actorflow's own
// system exists, or another application system is in use.
Status UseActorSystem(caf::actor_system& system);
// Stops using the application's system; fails while anything Actorflow
// made still holds it (a Session, an EmbeddedRuntime, a queue's actors).
Status ReleaseActorSystem();
// The system in use, without creating one (null: none).
std::shared_ptr<caf::actor_system> CurrentActorSystem();

}  // namespace af::actors
