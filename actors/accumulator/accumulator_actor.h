// The accumulator actor: one per accumulator instance, like a queue's. It
// owns the accumulator's AccumulatorCore and is the only one to touch it,
// so which take is served and which is withdrawn is decided in one place,
// one message at a time. Its messages are local only (requests carry
// callbacks and tensors by pointer): other processes reach an accumulator
// through the Send/Recv of the kernels using it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/accumulator/accumulator_request.h"

// Local only: a request holds callbacks and tensors of this process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::actors::AccumulatorRequest>)

namespace af::actors {

using accumulator_request_atom = caf::atom_constant<caf::atom("afarequest")>;
using accumulator_withdraw_atom = caf::atom_constant<caf::atom("afawithdr")>;
using accumulator_stop_atom = caf::atom_constant<caf::atom("afastop")>;
using accumulator_inspect_atom = caf::atom_constant<caf::atom("afainspect")>;

using accumulator_actor = caf::typed_actor<
    // A new operation; its callback answers, the message has no reply.
    caf::reacts_to<accumulator_request_atom, std::shared_ptr<AccumulatorRequest>>,
    // Request id, why (af::Code: CANCELLED or DEADLINE_EXCEEDED). The
    // actor sends itself these at a take's deadline.
    caf::reacts_to<accumulator_withdraw_atom, uint64_t, int32_t>,
    // The accumulator object is gone: fail what waits and quit.
    caf::reacts_to<accumulator_stop_atom>,
    // Its own stall inspection (actors/stall_reporting.h), while takes wait.
    caf::reacts_to<accumulator_inspect_atom>>;

// `dropped` is the accumulator object's count of stale gradients, which the
// actor's core keeps up to date.
accumulator_actor SpawnAccumulatorActor(caf::actor_system& system, const AccumulatorSpec& spec,
                                        std::shared_ptr<std::atomic<int64_t>> dropped);

}  // namespace af::actors
