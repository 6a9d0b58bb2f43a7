// A worker's watch of the masters that opened sessions on it: the other
// half of the master's heartbeats (master_health.h).
#pragma once

#include <chrono>

#include "actors/worker/worker_handlers.h"

namespace af::actors {

// How often the worker checks its remote masters' heartbeats.
inline constexpr auto kMasterWatchPeriod = std::chrono::milliseconds(200);

// Closes the sessions whose master stopped sending heartbeats, and ticks
// again while any session is watched.
void WatchMasters(WorkerPointer self);

}  // namespace af::actors
