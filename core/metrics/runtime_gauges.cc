#include "core/metrics/runtime_gauges.h"

#include <algorithm>

namespace af::metrics {

GaugeSet* QueueSizes() {
  static GaugeSet* const set = NewRegisteredGaugeSet(
      "actorflow_queue_size", "Elements each queue of this process holds now.", "queue",
      GaugeSet::Combine::kSum);
  return set;
}

GaugeSet* QueueCapacities() {
  static GaugeSet* const set = NewRegisteredGaugeSet(
      "actorflow_queue_capacity", "The most elements each bounded queue of this process holds.",
      "queue", GaugeSet::Combine::kSum);
  return set;
}

GaugeSet* AccumulatorHolds() {
  static GaugeSet* const set = NewRegisteredGaugeSet(
      "actorflow_accumulator_gradients_held",
      "Gradients each conditional accumulator of this process holds for its next take.",
      "accumulator", GaugeSet::Combine::kSum);
  return set;
}

GaugeSet* HeartbeatTimes() {
  // Several sessions may watch one task: the latest heartbeat any of them
  // heard is the task's.
  static GaugeSet* const set = NewRegisteredGaugeSet(
      "actorflow_heartbeat_age_seconds",
      "Seconds since this process's masters last heard a heartbeat from each remote task.", "task",
      GaugeSet::Combine::kMax, [](int64_t heard) {
        const int64_t now = HeartbeatStamp(std::chrono::steady_clock::now());
        return std::max(0.0, static_cast<double>(now - heard) / 1e9);
      });
  return set;
}

void RegisterRuntimeGauges() {
  QueueSizes();
  QueueCapacities();
  AccumulatorHolds();
  HeartbeatTimes();
}

}  // namespace af::metrics
