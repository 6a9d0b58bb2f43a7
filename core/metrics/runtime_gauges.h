// The gauge families of the runtime's live things, in one place so that a
// server lists them from its first scrape (tools/server_metrics.cc) and
// their owners (the queue and accumulator actors' cores, the master's
// worker records) share one definition of each. No CAF here.
#pragma once

#include <chrono>
#include <cstdint>

#include "core/metrics/gauge_set.h"

namespace af::metrics {

// actorflow_queue_size{queue}: elements each queue holds now, by the
// queue's shared name (or its creating node's name when it has none).
GaugeSet* QueueSizes();
// actorflow_queue_capacity{queue}: the bounded queues' capacities.
GaugeSet* QueueCapacities();
// actorflow_accumulator_gradients_held{accumulator}: gradients each
// (sparse) conditional accumulator holds for its next take.
GaugeSet* AccumulatorHolds();
// actorflow_heartbeat_age_seconds{task}: seconds since this process's
// masters last heard a heartbeat from each remote task they watch; a lost
// task's keeps growing until it rejoins or its sessions end. A member
// holds the steady clock's time of that heartbeat (HeartbeatStamp).
GaugeSet* HeartbeatTimes();

inline int64_t HeartbeatStamp(std::chrono::steady_clock::time_point heard) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(heard.time_since_epoch()).count();
}

// Makes the families above, so that they are listed before their first
// member.
void RegisterRuntimeGauges();

}  // namespace af::metrics
