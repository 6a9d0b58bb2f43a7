#include "actors/coordination/actor_staleness_clock.h"

#include <utility>

#include <caf/actor_system.hpp>

#include "actors/any_thread_send.h"

namespace af::actors {

Status ActorStalenessClock::Create(caf::actor_system& system, const StalenessClockSpec& spec,
                                   StalenessClockInterface** out) {
  AF_RETURN_IF_ERROR(ValidateStalenessClockSpec(spec));
  *out = new ActorStalenessClock(spec, SpawnStalenessClockActor(system, spec));
  return Status::OK();
}

ActorStalenessClock::ActorStalenessClock(StalenessClockSpec spec, staleness_clock_actor actor)
    : spec_(std::move(spec)), actor_(std::move(actor)) {}

ActorStalenessClock::~ActorStalenessClock() {
  SendFromAnyThread(actor_, clock_stop_atom::value);
}

void ActorStalenessClock::Tick(int32_t worker, CancellationManager* cancellation,
                               int64_t deadline_ns, TickCallback done) {
  auto request = std::make_shared<ClockTickRequest>();
  request->id = next_id_.fetch_add(1, std::memory_order_relaxed);
  request->worker = worker;
  request->deadline_ns = deadline_ns;
  request->done = std::move(done);
  Ref();
  request->keep_alive = ResourceRef<StalenessClockInterface>(this);
  if (cancellation != nullptr) {
    // The flag covers a cancellation that overtakes the tick itself: its
    // withdrawal finds nothing, and the tick is recorded without waiting.
    std::weak_ptr<ClockTickRequest> weak = request;
    const uint64_t id = request->id;
    staleness_clock_actor actor = actor_;
    const CancellationManager::Token token = cancellation->Register([weak, id, actor]() {
      if (auto r = weak.lock()) r->withdraw_requested.store(true, std::memory_order_release);
      SendFromAnyThread(actor, clock_withdraw_atom::value, id,
                        static_cast<int32_t>(Code::CANCELLED));
    });
    if (token == CancellationManager::kInvalidToken) {
      // The step is cancelled already: nothing is recorded.
      request->Finish(errors::Cancelled("StalenessClockTick was cancelled"));
      return;
    }
    request->cancellation = cancellation;
    request->token = token;
  }
  SendFromAnyThread(actor_, clock_tick_atom::value, std::move(request));
}

std::string ActorStalenessClock::DebugString() const {
  return StalenessClockLabel(spec_) + " of " + std::to_string(spec_.num_workers) +
         " workers, staleness " + std::to_string(spec_.staleness);
}

}  // namespace af::actors
