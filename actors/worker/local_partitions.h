// LocalPartitionTable: the executors a worker's device actors built, by
// partition handle, readable from any thread. It lets a client thread run a
// cached step of an in-process session itself (actors/local_step.h) instead
// of sending it through the master, worker and device actors: the actors
// still build, register, own and free every partition; the table only
// publishes what they registered. No CAF here.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "actors/worker/step_context.h"

namespace af {

class Executor;
class ResourceMgr;

struct LocalPartition {
  std::shared_ptr<void> owner;  // keeps `executor` alive while a step uses it
  Executor* executor = nullptr;
  ResourceMgr* resource_manager = nullptr;  // the device's containers
};

// Starts `parts` (partition i runs with the step's frame i) on this thread;
// each one's end goes to the step's PartitionDone. The step keeps every
// executor alive until it ends.
void RunPartitions(const std::shared_ptr<StepContext>& step,
                   const std::vector<LocalPartition>& parts);

class LocalPartitionTable {
 public:
  explicit LocalPartitionTable(std::shared_ptr<const LocalDeviceNames> local_devices = nullptr)
      : local_devices_(std::move(local_devices)) {}

  void Add(int64_t handle, LocalPartition partition);
  void Remove(int64_t handle);
  // False when the handle is not (or no longer) registered.
  bool Find(int64_t handle, LocalPartition* out) const;

  // The worker's device names (what a step's rendezvous treats as local).
  void set_local_devices(std::shared_ptr<const LocalDeviceNames> names);
  std::shared_ptr<const LocalDeviceNames> local_devices() const;

 private:
  mutable std::mutex mu_;  // guards partitions_ and local_devices_
  std::unordered_map<int64_t, LocalPartition> partitions_;
  std::shared_ptr<const LocalDeviceNames> local_devices_;
};

}  // namespace af
