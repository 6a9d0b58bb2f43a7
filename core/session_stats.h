// SessionStats: what a session's master holds, for diagnostics and for
// tests that a long-running job does not accumulate state per call.
#pragma once

#include <cstdint>

namespace af {

struct SessionStats {
  int64_t graph_nodes = 0;      // nodes of the session graph
  int64_t cached_steps = 0;     // step signatures made runnable (plans registered on workers)
  int64_t local_plans = 0;      // of those, published to run on the caller's thread
  int64_t steps_in_flight = 0;  // steps the master is running now
};

}  // namespace af
