#include "actors/coordination/staleness_clock_actor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/coordination/staleness_clock_core.h"
#include "actors/stall_inspection.h"

namespace af::actors {
namespace {

// Elastic events are rare and matter to whoever watches a training: one
// line on stderr each, as the accumulators' warnings.
void LogOnStderr(const std::string& what) {
  std::fprintf(stderr, "actorflow: %s\n", what.c_str());
}

struct ClockActorState {
  std::unique_ptr<StalenessClockCore> core;
  int64_t recheck_at_ns = 0;  // a clock_recheck_atom is due then (0: none)
  bool inspecting = false;    // a clock_inspect_atom is pending
};

using ClockPointer = staleness_clock_actor::stateful_pointer<ClockActorState>;

// One timer at a time, for the earliest moment a silent worker could be
// left out; a later tick that needs an earlier one arms it too (the
// earlier message then finds nothing to do).
void ArmRecheck(ClockPointer self) {
  if (!self->state.core) return;
  const int64_t at = self->state.core->NextRecheckNs();
  if (at == 0) return;
  if (self->state.recheck_at_ns != 0 && self->state.recheck_at_ns <= at) return;
  self->state.recheck_at_ns = at;
  const int64_t left = std::max<int64_t>(at - SteadyNowNanos(), 0);
  self->delayed_send(self, std::chrono::nanoseconds(left), clock_recheck_atom::value);
}

// Waiting ticks get a stall check (actors/stall_inspection.h).
void ArmInspection(ClockPointer self) {
  ArmStallCheck(self, &self->state.inspecting, clock_inspect_atom::value);
}

void Inspect(ClockPointer self) {
  self->state.inspecting = false;
  if (CheckStalls(self->state.core.get())) ArmInspection(self);
}

staleness_clock_actor::behavior_type ClockActor(ClockPointer self, StalenessClockSpec spec) {
  self->state.core =
      std::make_unique<StalenessClockCore>(std::move(spec), SteadyNowNanos(), LogOnStderr);
  return {
      [=](clock_tick_atom, const std::shared_ptr<ClockTickRequest>& request) {
        HandlerScope scope(self);
        if (!self->state.core) return request->Finish(errors::Cancelled("the clock is gone"));
        const uint64_t id = request->id;
        const int64_t deadline = request->deadline_ns;
        if (!self->state.core->Arrive(request, SteadyNowNanos())) return;
        ArmInspection(self);
        ArmRecheck(self);
        if (deadline <= 0) return;
        // It waits: its deadline is a message to ourselves, which withdraws
        // it unless it went on first (then the message finds nothing).
        const int64_t left = deadline - SteadyNowNanos();
        if (left <= 0) {
          self->state.core->Withdraw(id, Code::DEADLINE_EXCEEDED, SteadyNowNanos());
          return;
        }
        self->delayed_send(self, std::chrono::nanoseconds(left), clock_withdraw_atom::value, id,
                           static_cast<int32_t>(Code::DEADLINE_EXCEEDED));
      },
      [=](clock_withdraw_atom, uint64_t id, int32_t code) {
        HandlerScope scope(self);
        if (self->state.core)
          self->state.core->Withdraw(id, static_cast<Code>(code), SteadyNowNanos());
      },
      [=](clock_recheck_atom) {
        HandlerScope scope(self);
        self->state.recheck_at_ns = 0;
        if (!self->state.core) return;
        self->state.core->Recheck(SteadyNowNanos());
        ArmRecheck(self);
      },
      [=](clock_inspect_atom) { Inspect(self); },
      [=](clock_stop_atom) {
        HandlerScope scope(self);
        self->state.core.reset();
        self->quit();
      },
  };
}

}  // namespace

staleness_clock_actor SpawnStalenessClockActor(caf::actor_system& system,
                                               const StalenessClockSpec& spec) {
  return system.spawn(ClockActor, spec);
}

}  // namespace af::actors
