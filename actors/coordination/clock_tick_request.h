// ClockTickRequest: one tick of a staleness clock, from the kernel to the
// clock's actor. The caller fills in the worker and how to answer; the actor
// alone decides when the wait ends and runs the callback exactly once.
// Shared by the caller, the actor and the cancellation callback, which is
// why only the atomic flag is touched by more than one thread (the
// accumulator's AccumulatorRequest scheme).
#pragma once

#include <atomic>
#include <cstdint>

#include "core/cancellation.h"
#include "core/resource_mgr.h"
#include "core/staleness_clock_interface.h"

namespace af::actors {

struct ClockTickRequest {
  uint64_t id = 0;          // unique per clock: withdrawals name requests by it
  int32_t worker = 0;
  int64_t deadline_ns = 0;  // absolute steady-clock time; 0: none

  // Set (before the withdrawal message is sent) by the cancellation
  // callback, so that a tick arriving after its own withdrawal is recorded
  // but does not wait.
  std::atomic<bool> withdraw_requested{false};
  CancellationManager* cancellation = nullptr;
  CancellationManager::Token token = CancellationManager::kInvalidToken;

  StalenessClockInterface::TickCallback done;
  // Keeps the clock (and so its actor) alive until the callback ran.
  ResourceRef<StalenessClockInterface> keep_alive;

  // Actor only.
  bool finished = false;
  int64_t clock = 0;          // the worker's clock once the tick was recorded
  int64_t arrived_ns = 0;
  bool stall_reported = false;

  // Runs the callback once: deregisters from the cancellation manager first
  // (a cancellation racing with it only sends a withdrawal the actor
  // ignores), then answers, then lets go of the clock.
  void Finish(const Status& status);
};

}  // namespace af::actors
