// ActorStalenessClock: the StalenessClockInterface kernels use, implemented
// by messaging the clock's actor (the ActorAccumulator scheme). Each tick
// becomes a ClockTickRequest with a fresh id; the actor answers through the
// request's callback, on the actor's thread.
//
// Waiting ends in the actor, never here: a deadline is a delayed message
// the actor sends itself, and a cancellation sends it "withdraw(id)". The
// actor withdraws the tick if it still waits, or ignores the message if
// the tick went on already.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "actors/coordination/staleness_clock_actor.h"
#include "core/staleness_clock_interface.h"

namespace af::actors {

class ActorStalenessClock final : public StalenessClockInterface {
 public:
  // Spawns the clock's actor in `system`.
  static Status Create(caf::actor_system& system, const StalenessClockSpec& spec,
                       StalenessClockInterface** out);

  void Tick(int32_t worker, CancellationManager* cancellation, int64_t deadline_ns,
            TickCallback done) override;

  const StalenessClockSpec& spec() const override { return spec_; }
  std::string DebugString() const override;

 private:
  ActorStalenessClock(StalenessClockSpec spec, staleness_clock_actor actor);
  ~ActorStalenessClock() override;  // stops the actor (requests in flight hold references)

  const StalenessClockSpec spec_;
  staleness_clock_actor actor_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace af::actors
