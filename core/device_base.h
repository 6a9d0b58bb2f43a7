// What a kernel may know about the device it runs on. The device actors in
// actors/device implement it; core and kernels see only this interface.
#pragma once

#include <functional>
#include <string>

#include "core/allocator.h"
#include "core/types.h"

namespace af {

using DeviceType = std::string;
inline const char* const DEVICE_CPU = "CPU";
inline const char* const DEVICE_GPU = "GPU";

namespace gpu {
class GpuDeviceContext;
}  // namespace gpu

class ThreadPoolInterface {
 public:
  virtual ~ThreadPoolInterface() = default;
  virtual void Schedule(std::function<void()> fn) = 0;
  virtual int NumThreads() const = 0;
  // Splits [0, total) into shards and runs fn(begin, end) on them in
  // parallel, returning when all are done. cost_per_unit (in cycles, rough)
  // decides how finely to split.
  virtual void ParallelFor(int64_t total, int64_t cost_per_unit,
                           const std::function<void(int64_t, int64_t)>& fn) = 0;
};

class DeviceBase {
 public:
  virtual ~DeviceBase() = default;
  // "/job:localhost/replica:0/task:0/device:CPU:0"
  virtual const std::string& name() const = 0;
  virtual const DeviceType& device_type() const = 0;
  virtual Allocator* GetAllocator() = 0;
  // Where a tensor of `dtype` lives. A GPU device keeps integer, bool and
  // string tensors (shapes, indices, flags that host code reads) in host
  // memory, as TensorFlow's GPU kernels keep int32 in host memory.
  virtual Allocator* GetAllocatorFor(DataType dtype) { return GetAllocator(); }
  // Streams, events and libraries of a GPU device; nullptr elsewhere.
  virtual gpu::GpuDeviceContext* gpu_context() { return nullptr; }
  // Intra-op parallelism for kernels; may be nullptr (run inline).
  virtual ThreadPoolInterface* intra_op_pool() { return nullptr; }
  // Identifies this incarnation of the device (changes when a worker
  // restarts); part of rendezvous keys.
  virtual uint64_t incarnation() const { return 0; }
};

}  // namespace af
