// StalenessClockCore: the state and rules of one staleness clock (core/
// staleness_clock_interface.h) — every worker's clock, when each last
// ticked, and the ticks waiting to be let go. The clock's actor runs it one
// message at a time, so it needs no lock, and it knows nothing of CAF or of
// the time: every call is given `now`, the actor supplies messages and
// timers, and tests drive it with a fake time.
//
// Every request ends exactly once, here. A tick is recorded on arrival; a
// waiting tick is let go as soon as its clock minus the slowest active
// worker's is at most the staleness bound, or withdrawn (deadline,
// cancelled step) — its recorded step stays.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/coordination/clock_tick_request.h"
#include "actors/resources/resource_core.h"

namespace af::actors {

class StalenessClockCore final : public ResourceCore {
 public:
  // `log` gets the elastic events (a worker left out of the minimum, a
  // worker rejoining); `now_ns` starts every worker's silence.
  StalenessClockCore(StalenessClockSpec spec, int64_t now_ns,
                     std::function<void(const std::string&)> log);
  // Fails the ticks still waiting (the clock is going away).
  ~StalenessClockCore() override;
  StalenessClockCore(const StalenessClockCore&) = delete;
  StalenessClockCore& operator=(const StalenessClockCore&) = delete;

  // Records the tick that just arrived and lets go what it can. True when
  // the tick is left waiting (the actor then arms its deadline).
  bool Arrive(std::shared_ptr<ClockTickRequest> request, int64_t now_ns);
  bool Arrive(std::shared_ptr<WaitingRequest> request, int64_t now_ns) override {
    return Arrive(std::static_pointer_cast<ClockTickRequest>(std::move(request)), now_ns);
  }

  // Ends the waiting tick `id` with `code` (CANCELLED or DEADLINE_EXCEEDED).
  // A tick no longer waiting was let go already: nothing happens.
  void Withdraw(uint64_t id, Code code, int64_t now_ns) override;

  // Leaves out the workers silent for too long by `now_ns` and lets go the
  // ticks that no longer wait for them.
  void Recheck(int64_t now_ns) override;
  // When a Recheck could next let a tick go: the first moment a worker that
  // holds one back counts as silent. 0: nothing to recheck.
  int64_t NextRecheckNs() const override;

  void FailAll(const Status& why);

  // The stall inspector's lines for ticks that arrived before
  // `waiting_since_ns` and still wait, each reported once; whether any tick
  // still waits at all (for the next inspection).
  bool InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                     std::vector<std::string>* lines) override;

  const StalenessClockSpec& spec() const { return spec_; }
  int64_t clock(int32_t worker) const { return clocks_[worker]; }
  bool active(int32_t worker) const { return active_[worker]; }
  size_t num_waiting() const { return waiting_.size(); }
  // The slowest active worker's clock (the ticking worker always counts).
  int64_t MinActiveClock() const;

 private:
  // Marks workers silent for longer than inactive_after_ms as left out.
  void UpdateActivity(int64_t now_ns);
  // Lets go every waiting tick within the bound (their workers' silence
  // starts at `now_ns`).
  void Release(int64_t now_ns);
  int32_t SlowestActiveWorker() const;  // -1 if none
  std::string Describe(const ClockTickRequest& r, int64_t now_ns) const;

  const StalenessClockSpec spec_;
  const std::string label_;
  const int64_t inactive_after_ns_;  // 0: never
  std::function<void(const std::string&)> log_;
  std::vector<int64_t> clocks_;
  std::vector<int64_t> last_tick_ns_;
  std::vector<bool> active_;
  std::vector<std::shared_ptr<ClockTickRequest>> waiting_;  // in arrival order
};

}  // namespace af::actors
