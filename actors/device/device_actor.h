// Device actor: one per device of a worker process. It owns the device
// (allocator and thread pool) and the executors of the partitions
// registered on it, and starts a partition's step when its worker asks;
// the executor then runs cheap kernels inline on this actor's thread and
// expensive ones on the device pool, and reports through the step context,
// so no actor thread ever waits for a step.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/interfaces.h"
#include "actors/worker/local_partitions.h"

namespace af::actors {

struct DeviceActorOptions {
  std::string name;  // full device name
  std::string type = "CPU";
  int num_threads = 1;  // the device's pool
  int gpu_ordinal = -1;  // the process GPU a "GPU" device drives
  uint64_t incarnation = 0;
  // Where registered executors are published for the in-process session's
  // client threads (null: nowhere).
  std::shared_ptr<LocalPartitionTable> local_partitions;
};

// Spawns a device actor linked to `parent` (its worker), so that they end
// together.
device_actor SpawnDeviceActor(caf::local_actor* parent, const DeviceActorOptions& options);

}  // namespace af::actors
