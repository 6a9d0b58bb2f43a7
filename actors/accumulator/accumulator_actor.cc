#include "actors/accumulator/accumulator_actor.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/accumulator/accumulator_core.h"
#include "actors/any_thread_send.h"
#include "actors/stall_inspection.h"

namespace af::actors {
namespace {

void WarnOnStderr(const std::string& what) {
  std::fprintf(stderr, "actorflow: warning: %s\n", what.c_str());
}

struct AccumulatorActorState {
  std::unique_ptr<AccumulatorCore> core;
  bool inspecting = false;  // an accumulator_inspect_atom tick is pending
};

using AccumulatorPointer = accumulator_actor::stateful_pointer<AccumulatorActorState>;

// Waiting takes get a stall check (actors/stall_inspection.h).
void ArmInspection(AccumulatorPointer self) {
  ArmStallCheck(self, &self->state.inspecting, accumulator_inspect_atom::value);
}

void Inspect(AccumulatorPointer self) {
  self->state.inspecting = false;
  if (CheckStalls(self->state.core.get())) ArmInspection(self);
}

accumulator_actor::behavior_type AccumulatorActor(AccumulatorPointer self, AccumulatorSpec spec,
                                                  std::shared_ptr<std::atomic<int64_t>> dropped) {
  self->state.core =
      std::make_unique<AccumulatorCore>(std::move(spec), std::move(dropped), WarnOnStderr);
  return {
      [=](accumulator_request_atom, const std::shared_ptr<AccumulatorRequest>& request) {
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
        self->delayed_send(self, std::chrono::nanoseconds(left),
                           accumulator_withdraw_atom::value, id,
                           static_cast<int32_t>(Code::DEADLINE_EXCEEDED));
      },
      [=](accumulator_withdraw_atom, uint64_t id, int32_t code) {
        HandlerScope scope(self);
        self->state.core->Withdraw(id, static_cast<Code>(code));
      },
      [=](accumulator_inspect_atom) { Inspect(self); },
      [=](accumulator_stop_atom) {
        HandlerScope scope(self);
        self->state.core.reset();
        self->quit();
      },
  };
}

}  // namespace

accumulator_actor SpawnAccumulatorActor(caf::actor_system& system, const AccumulatorSpec& spec,
                                        std::shared_ptr<std::atomic<int64_t>> dropped) {
  return system.spawn(AccumulatorActor, spec, std::move(dropped));
}

}  // namespace af::actors
