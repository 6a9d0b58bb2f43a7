// The staleness clock's actor: one per clock, like an accumulator's. It owns
// the clock's StalenessClockCore and is the only one to touch it, so which
// tick goes on and which is withdrawn is decided in one place, one message
// at a time. Its messages are local only (requests carry callbacks): other
// processes reach a clock through the Send/Recv of the kernels using it.
#pragma once

#include <cstdint>
#include <memory>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/coordination/clock_tick_request.h"

// Local only: a request holds a callback of this process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::actors::ClockTickRequest>)

namespace af::actors {

using clock_tick_atom = caf::atom_constant<caf::atom("afctick")>;
using clock_withdraw_atom = caf::atom_constant<caf::atom("afcwithdr")>;
using clock_recheck_atom = caf::atom_constant<caf::atom("afcrecheck")>;
using clock_inspect_atom = caf::atom_constant<caf::atom("afcinspect")>;
using clock_stop_atom = caf::atom_constant<caf::atom("afcstop")>;

using staleness_clock_actor = caf::typed_actor<
    // A tick; its callback answers, the message has no reply.
    caf::reacts_to<clock_tick_atom, std::shared_ptr<ClockTickRequest>>,
    // Request id, why (af::Code: CANCELLED or DEADLINE_EXCEEDED). The
    // actor sends itself these at a tick's deadline.
    caf::reacts_to<clock_withdraw_atom, uint64_t, int32_t>,
    // Its own timer: a silent worker may now be left out of the minimum.
    caf::reacts_to<clock_recheck_atom>,
    // Its own stall inspection (actors/stall_reporting.h), while ticks wait.
    caf::reacts_to<clock_inspect_atom>,
    // The clock object is gone: fail what waits and quit.
    caf::reacts_to<clock_stop_atom>>;

staleness_clock_actor SpawnStalenessClockActor(caf::actor_system& system,
                                               const StalenessClockSpec& spec);

}  // namespace af::actors
