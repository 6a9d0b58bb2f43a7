// The resource actor: one per resource instance whose requests may wait —
// a queue, a gradient accumulator, a staleness clock (whitepaper §4.6). It
// owns the resource's core (resource_core.h) and is the only one to touch
// it, so which request is served and which is withdrawn is decided in one
// place, one message at a time. Deadlines are delayed messages it sends
// itself; a cancelled step sends it a withdrawal.
//
// Its messages are local only (requests carry callbacks and tensors by
// pointer): other processes reach a resource through the Send/Recv of the
// kernels using it, never by messaging it.
#pragma once

#include <cstdint>
#include <memory>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/resources/resource_core.h"

// Local only: a request holds callbacks and tensors of this process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::actors::WaitingRequest>)

namespace af::actors {

using resource_request_atom = caf::atom_constant<caf::atom("afrrequest")>;
using resource_withdraw_atom = caf::atom_constant<caf::atom("afrwithdr")>;
using resource_recheck_atom = caf::atom_constant<caf::atom("afrrecheck")>;
using resource_inspect_atom = caf::atom_constant<caf::atom("afrinspect")>;
using resource_stop_atom = caf::atom_constant<caf::atom("afrstop")>;

using resource_actor = caf::typed_actor<
    // A new operation; its callback answers, the message has no reply.
    caf::reacts_to<resource_request_atom, std::shared_ptr<WaitingRequest>>,
    // Request id, why (af::Code: CANCELLED or DEADLINE_EXCEEDED). The actor
    // sends itself these at a request's deadline.
    caf::reacts_to<resource_withdraw_atom, uint64_t, int32_t>,
    // Its own timer: the core's waits may end with time alone.
    caf::reacts_to<resource_recheck_atom>,
    // Its own stall inspection (actors/health/stall_reporting.h), while requests wait.
    caf::reacts_to<resource_inspect_atom>,
    // The resource object is gone: fail what waits (the core's destructor)
    // and quit.
    caf::reacts_to<resource_stop_atom>>;

// `core` is handed over: nothing else may touch it once the actor runs.
resource_actor SpawnResourceActor(caf::actor_system& system, std::shared_ptr<ResourceCore> core);

}  // namespace af::actors
