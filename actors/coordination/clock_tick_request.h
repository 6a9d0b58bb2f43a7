// ClockTickRequest: one tick of a staleness clock, from its
// StalenessClockHandle to the clock's resource actor
// (actors/resources/waiting_request.h says what every such request shares).
// The clock's core alone decides when the wait ends and runs the callback
// exactly once. A tick whose step was cancelled before it arrived is
// recorded but does not wait.
#pragma once

#include <atomic>
#include <cstdint>

#include "actors/resources/waiting_request.h"
#include "core/resource_mgr.h"
#include "core/staleness_clock_interface.h"

namespace af::actors {

struct ClockTickRequest final : WaitingRequest {
  int32_t worker = 0;

  StalenessClockInterface::TickCallback done;
  // Keeps the clock (and so its actor) alive until the callback ran.
  ResourceRef<StalenessClockInterface> keep_alive;

  int64_t clock = 0;  // the worker's clock once the tick was recorded (actor only)

  Status CancelledStatus() const override {
    return errors::Cancelled("StalenessClockTick was cancelled");
  }
  void Fail(const Status& status) override { Finish(status); }
  // Runs the callback once, then lets go of the clock.
  void Finish(const Status& status);
};

}  // namespace af::actors
