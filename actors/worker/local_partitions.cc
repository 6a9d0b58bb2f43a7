#include "actors/worker/local_partitions.h"

namespace af {

void LocalPartitionTable::Add(int64_t handle, LocalPartition partition) {
  std::lock_guard<std::mutex> lock(mu_);
  partitions_[handle] = std::move(partition);
}

void LocalPartitionTable::Remove(int64_t handle) {
  std::shared_ptr<void> last;  // freed outside the lock: it may run a destructor chain
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = partitions_.find(handle);
    if (it == partitions_.end()) return;
    last = std::move(it->second.owner);
    partitions_.erase(it);
  }
}

bool LocalPartitionTable::Find(int64_t handle, LocalPartition* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = partitions_.find(handle);
  if (it == partitions_.end()) return false;
  *out = it->second;
  return true;
}

void LocalPartitionTable::set_local_devices(std::shared_ptr<const LocalDeviceNames> names) {
  std::lock_guard<std::mutex> lock(mu_);
  local_devices_ = std::move(names);
}

std::shared_ptr<const LocalDeviceNames> LocalPartitionTable::local_devices() const {
  std::lock_guard<std::mutex> lock(mu_);
  return local_devices_;
}

}  // namespace af
