// StalenessClockHandle: the StalenessClockInterface kernels use,
// implemented by messaging the clock's resource actor
// (actors/resources/resource_mailbox.h says how requests travel, wait and
// are withdrawn). Each tick becomes a ClockTickRequest; the clock's core
// (staleness_clock_core.h) decides when its wait ends.
#pragma once

#include <string>

#include "actors/resources/resource_mailbox.h"
#include "core/staleness_clock_interface.h"

namespace af::actors {

class StalenessClockHandle final : public StalenessClockInterface {
 public:
  // Spawns the clock's actor in `system`.
  static Status Create(caf::actor_system& system, const StalenessClockSpec& spec,
                       StalenessClockInterface** out);

  void Tick(int32_t worker, CancellationManager* cancellation, int64_t deadline_ns,
            TickCallback done) override;

  const StalenessClockSpec& spec() const override { return spec_; }
  std::string DebugString() const override;

 private:
  StalenessClockHandle(caf::actor_system& system, StalenessClockSpec spec);
  ~StalenessClockHandle() override = default;  // the mailbox stops the actor

  const StalenessClockSpec spec_;
  ResourceMailbox mailbox_;
};

}  // namespace af::actors
