// The stall check shared by the actors that hold waiting requests (queues,
// accumulators, staleness clocks): while anything waits, the actor sends
// itself a check every quarter of the warning time, and each check reports
// the requests that have waited past it, once each. The rules of what
// "waiting" means stay in each actor's core, behind one method:
//   bool InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
//                      std::vector<std::string>* lines);  // true: still waits
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "actors/health/stall_reporting.h"

namespace af::actors {

// Steady-clock nanoseconds, the time base of the cores' deadlines.
inline int64_t SteadyNowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Arms the next check (`check` is the actor's own inspect atom) unless one
// is pending (`*pending`) or reporting is off.
template <class Self, class CheckAtom>
void ArmStallCheck(Self self, bool* pending, CheckAtom check) {
  const StallReporting reporting = CurrentStallReporting();
  if (*pending || reporting.after.count() <= 0) return;
  *pending = true;
  self->delayed_send(self, reporting.after / 4, check);
}

// One check of `core` (may be null): reports what waited too long and
// returns whether anything still waits, so the caller arms the next one.
template <class Core>
bool CheckStalls(Core* core) {
  if (core == nullptr) return false;
  const StallReporting reporting = CurrentStallReporting();
  if (reporting.after.count() <= 0) return false;
  const int64_t now = SteadyNowNanos();
  std::vector<std::string> lines;
  const bool waiting = core->InspectStalls(
      now, now - std::chrono::duration_cast<std::chrono::nanoseconds>(reporting.after).count(),
      &lines);
  for (const std::string& line : lines) ReportStall(reporting, line);
  return waiting;
}

}  // namespace af::actors
