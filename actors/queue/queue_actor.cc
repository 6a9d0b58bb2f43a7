#include "actors/queue/queue_actor.h"

#include <chrono>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/queue/queue_core.h"
#include "actors/stall_inspection.h"

namespace af::actors {
namespace {

struct QueueActorState {
  std::unique_ptr<QueueCore> core;
  bool inspecting = false;  // a queue_inspect_atom tick is pending
};

using QueuePointer = queue_actor::stateful_pointer<QueueActorState>;

// Waiting requests get a stall check (actors/stall_inspection.h).
void ArmInspection(QueuePointer self) {
  ArmStallCheck(self, &self->state.inspecting, queue_inspect_atom::value);
}

void Inspect(QueuePointer self) {
  self->state.inspecting = false;
  if (CheckStalls(self->state.core.get())) ArmInspection(self);
}

queue_actor::behavior_type QueueActor(QueuePointer self, QueueSpec spec) {
  self->state.core = std::make_unique<QueueCore>(std::move(spec));
  return {
      [=](queue_request_atom, const std::shared_ptr<QueueRequest>& request) {
        HandlerScope scope(self);
        const uint64_t id = request->id;
        const int64_t deadline = request->deadline_ns;
        request->arrived_ns = SteadyNowNanos();
        if (!self->state.core->Arrive(request)) return;
        ArmInspection(self);
        if (deadline <= 0) return;
        // It waits: its deadline is a message to ourselves, which withdraws
        // it unless it was served first (then the message finds nothing).
        const int64_t left = deadline - SteadyNowNanos();
        if (left <= 0) {
          self->state.core->Withdraw(id, Code::DEADLINE_EXCEEDED);
          return;
        }
        self->delayed_send(self, std::chrono::nanoseconds(left), queue_withdraw_atom::value, id,
                           static_cast<int32_t>(Code::DEADLINE_EXCEEDED));
      },
      [=](queue_withdraw_atom, uint64_t id, int32_t code) {
        HandlerScope scope(self);
        self->state.core->Withdraw(id, static_cast<Code>(code));
      },
      [=](queue_inspect_atom) { Inspect(self); },
      [=](queue_stop_atom) {
        HandlerScope scope(self);
        self->state.core.reset();
        self->quit();
      },
  };
}

}  // namespace

queue_actor SpawnQueueActor(caf::actor_system& system, const QueueSpec& spec) {
  return system.spawn(QueueActor, spec);
}

}  // namespace af::actors
