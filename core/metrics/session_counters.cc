#include "core/metrics/session_counters.h"

#include <algorithm>

namespace af::metrics {

Counter* SessionsOpened() {
  static Counter* const c = MetricsRegistry::Global().GetCounter(
      "actorflow_worker_sessions_opened_total", "Sessions opened on this process's workers.");
  return c;
}

Counter* SessionsClosed() {
  static Counter* const c = MetricsRegistry::Global().GetCounter(
      "actorflow_worker_sessions_closed_total", "Sessions closed on this process's workers.");
  return c;
}

int64_t SessionsOpenNow() {
  // Closed is read first: a session opened and closed between the two reads
  // then counts as open for this one reading, never as minus one.
  const auto closed = static_cast<int64_t>(SessionsClosed()->value());
  const auto opened = static_cast<int64_t>(SessionsOpened()->value());
  return std::max<int64_t>(opened - closed, 0);
}

}  // namespace af::metrics
