// LocalDevice: a device in this process (CPU now, GPU later) as kernels see
// it: a name, an allocator and a thread pool.
#pragma once

#include <memory>
#include <string>

#include "core/allocator.h"
#include "core/device_base.h"
#include "runtime/thread_pool.h"

namespace af {

class LocalDevice : public DeviceBase {
 public:
  // `name` is a full device name; `num_threads` sizes the pool that runs
  // expensive kernels and intra-op shards.
  LocalDevice(std::string name, DeviceType type, Allocator* allocator, int num_threads,
              uint64_t incarnation);
  const std::string& name() const override { return name_; }
  const DeviceType& device_type() const override { return type_; }
  Allocator* GetAllocator() override { return allocator_; }
  ThreadPoolInterface* intra_op_pool() override { return pool_.get(); }
  uint64_t incarnation() const override { return incarnation_; }
  ThreadPool* pool() { return pool_.get(); }

 private:
  std::string name_;
  DeviceType type_;
  Allocator* allocator_;
  std::unique_ptr<ThreadPool> pool_;
  uint64_t incarnation_;
};

// "/job:localhost/replica:0/task:0/device:CPU:<index>"
std::string LocalCpuDeviceName(int index, const std::string& job = "localhost",
                               int task = 0);

}  // namespace af
