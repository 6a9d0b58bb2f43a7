// StalenessClockInterface: what kernels see of a staleness clock, the shared
// state of stale-synchronous parallel training (SSP; beyond the TensorFlow
// papers). Like accumulators and queues, the clock itself is an actor
// (actors/coordination/); kernels cannot include CAF, so they reach it
// through this interface, and a tick answers through a callback: a worker
// held back waits as a pending step, never as a blocked thread.
//
// The rule. Each of num_workers workers has a clock, the number of steps it
// finished. Tick(w) records that w finished a step (clock + 1) and answers
// once w may start its next one: when its clock minus the slowest active
// worker's clock is at most `staleness`. staleness 0 is bulk-synchronous
// (lockstep), a huge staleness is asynchronous.
//
// Elastic. A worker that has not ticked for inactive_after_ms (> 0) is left
// out of the minimum, so a dead or stopped worker holds nobody back for
// longer than that; the clock logs it. When it ticks again it rejoins at
// the current minimum (its clock is raised to the slowest active worker's
// if it fell behind), which is logged too.
//
// A tick is recorded when it arrives; only the wait ends in one of three
// ways: the worker may go on, its deadline passes (DEADLINE_EXCEEDED), or
// `cancellation` fires (CANCELLED). A withdrawn wait leaves the recorded
// step in place: the step it stands for was finished.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/resource_mgr.h"
#include "core/status.h"

namespace af {

class CancellationManager;

struct StalenessClockSpec {
  std::string name;  // for messages: the shared name, or the creating node's name
  int32_t num_workers = 1;
  int64_t staleness = 0;
  int64_t inactive_after_ms = 0;  // <= 0: a worker is never left out
};

class StalenessClockInterface : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "StalenessClock";
  // clock: the worker's clock after the tick, i.e. the number of the step
  // it may start now (counting from 0).
  using TickCallback = std::function<void(const Status&, int64_t clock)>;

  // deadline_ns: absolute steady-clock nanoseconds; 0 means none (the
  // step's cancellation still ends the wait). A worker outside
  // [0, num_workers) is INVALID_ARGUMENT.
  virtual void Tick(int32_t worker, CancellationManager* cancellation, int64_t deadline_ns,
                    TickCallback done) = 0;

  virtual const StalenessClockSpec& spec() const = 0;
};

// "StalenessClock 'name'".
std::string StalenessClockLabel(const StalenessClockSpec& spec);

// INVALID_ARGUMENT unless num_workers >= 1 and staleness >= 0.
Status ValidateStalenessClockSpec(const StalenessClockSpec& spec);

// OK if an op asking for `wanted` may use the existing clock `have` (same
// num_workers, staleness and inactive_after_ms); INVALID_ARGUMENT naming the
// difference otherwise.
Status StalenessClockSpecsMatch(const StalenessClockSpec& have, const StalenessClockSpec& wanted);

// How kernels make clocks: the actor layer installs a factory when the
// runtime starts (actors/coordination/). Without one, creating a clock is
// FAILED_PRECONDITION.
using StalenessClockFactory =
    std::function<Status(const StalenessClockSpec& spec, StalenessClockInterface** out)>;
void SetStalenessClockFactory(StalenessClockFactory factory);
Status CreateStalenessClock(const StalenessClockSpec& spec, StalenessClockInterface** out);

}  // namespace af
