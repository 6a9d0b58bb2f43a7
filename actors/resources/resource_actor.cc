#include "actors/resources/resource_actor.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/health/stall_inspection.h"

namespace af::actors {
namespace {

struct ResourceActorState {
  std::shared_ptr<ResourceCore> core;
  int64_t recheck_at_ns = 0;  // a resource_recheck_atom is due then (0: none)
  bool inspecting = false;    // a resource_inspect_atom is pending
};

using ResourcePointer = resource_actor::stateful_pointer<ResourceActorState>;

// One timer at a time, for the earliest moment the core wants to look
// again; a later request that needs an earlier one arms it too (the later
// message then finds nothing to do).
void ArmRecheck(ResourcePointer self) {
  if (!self->state.core) return;
  const int64_t at = self->state.core->NextRecheckNs();
  if (at == 0) return;
  if (self->state.recheck_at_ns != 0 && self->state.recheck_at_ns <= at) return;
  self->state.recheck_at_ns = at;
  const int64_t left = std::max<int64_t>(at - SteadyNowNanos(), 0);
  self->delayed_send(self, std::chrono::nanoseconds(left), resource_recheck_atom::value);
}

// Waiting requests get a stall check (actors/health/stall_inspection.h).
void ArmInspection(ResourcePointer self) {
  ArmStallCheck(self, &self->state.inspecting, resource_inspect_atom::value);
}

void Arrive(ResourcePointer self, const std::shared_ptr<WaitingRequest>& request) {
  ResourceCore* core = self->state.core.get();
  if (core == nullptr) return request->Fail(errors::Cancelled("the resource is gone"));
  const uint64_t id = request->id;
  const int64_t deadline = request->deadline_ns;
  const int64_t now = SteadyNowNanos();
  request->arrived_ns = now;
  if (!core->Arrive(request, now)) return;
  ArmInspection(self);
  ArmRecheck(self);
  if (deadline <= 0) return;
  // It waits: its deadline is a message to ourselves, which withdraws it
  // unless it was served first (then the message finds nothing).
  const int64_t left = deadline - SteadyNowNanos();
  if (left <= 0) {
    core->Withdraw(id, Code::DEADLINE_EXCEEDED, SteadyNowNanos());
    return;
  }
  self->delayed_send(self, std::chrono::nanoseconds(left), resource_withdraw_atom::value, id,
                     static_cast<int32_t>(Code::DEADLINE_EXCEEDED));
}

resource_actor::behavior_type ResourceActor(ResourcePointer self,
                                            std::shared_ptr<ResourceCore> core) {
  self->state.core = std::move(core);
  return {
      [=](resource_request_atom, const std::shared_ptr<WaitingRequest>& request) {
        HandlerScope scope(self);
        Arrive(self, request);
      },
      [=](resource_withdraw_atom, uint64_t id, int32_t code) {
        HandlerScope scope(self);
        if (self->state.core) {
          self->state.core->Withdraw(id, static_cast<Code>(code), SteadyNowNanos());
        }
      },
      [=](resource_recheck_atom) {
        HandlerScope scope(self);
        self->state.recheck_at_ns = 0;
        if (!self->state.core) return;
        self->state.core->Recheck(SteadyNowNanos());
        ArmRecheck(self);
      },
      [=](resource_inspect_atom) {
        self->state.inspecting = false;
        if (CheckStalls(self->state.core.get())) ArmInspection(self);
      },
      [=](resource_stop_atom) {
        HandlerScope scope(self);
        self->state.core.reset();
        self->quit();
      },
  };
}

}  // namespace

resource_actor SpawnResourceActor(caf::actor_system& system, std::shared_ptr<ResourceCore> core) {
  return system.spawn(ResourceActor, std::move(core));
}

}  // namespace af::actors
