#include "actors/worker/local_partitions.h"

#include "runtime/executor.h"

namespace af {

void RunPartitions(const std::shared_ptr<StepContext>& step,
                   const std::vector<LocalPartition>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    step->KeepAlive(static_cast<int>(i), parts[i].owner);
    Executor::Args args;
    args.step_id = step->step_id();
    args.rendezvous = step->rendezvous();
    args.cancellation_manager = step->cancellation_manager();
    args.call_frame = step->frame(static_cast<int>(i));
    args.resource_manager = parts[i].resource_manager;
    parts[i].executor->RunAsync(args, [step](const Status& s) { step->PartitionDone(s); });
  }
}

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
