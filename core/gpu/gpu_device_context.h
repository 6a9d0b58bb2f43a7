// GpuDeviceContext: one GPU device as kernels see it — its streams (one for
// compute, one for each copy direction), its BFC allocator over device
// memory, pinned host memory for transfers, a pool of events, and slots for
// per-device library handles (cuBLAS, cuDNN) that the CUDA kernels create
// on first use. Backend-neutral: the same object serves CUDA and emulation.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/gpu/gpu_backend.h"
#include "core/status.h"
#include "core/types.h"

namespace af::gpu {

class BfcAllocator;

struct GpuDeviceOptions {
  // Bytes of device memory the device's allocator may take; 0: 90 % of
  // what is free when the device is created.
  int64_t memory_limit = 0;
};

class GpuDeviceContext {
 public:
  static Status Create(Backend* backend, int ordinal, const GpuDeviceOptions& options,
                       std::unique_ptr<GpuDeviceContext>* out);
  ~GpuDeviceContext();

  int ordinal() const { return ordinal_; }
  bool emulated() const { return backend_->IsEmulated(); }
  Backend* backend() const { return backend_; }
  const DeviceProperties& properties() const { return properties_; }
  int64_t memory_limit() const { return memory_limit_; }

  // Kernels run on the compute stream; copies into and out of the device
  // run on their own streams so they overlap with compute.
  Stream* compute_stream() const { return compute_.get(); }
  Stream* host_to_device_stream() const { return host_to_device_.get(); }
  Stream* device_to_host_stream() const { return device_to_host_.get(); }
  Stream* device_to_device_stream() const { return device_to_device_.get(); }

  // Device memory (best-fit with coalescing over the backend's memory).
  Allocator* device_allocator() const;
  BfcAllocator* bfc_allocator() const { return device_allocator_.get(); }
  // Page-locked host memory: staging buffers for copies across processes.
  Allocator* pinned_host_allocator() const;

  // An event from the device's pool; it goes back to the pool when the
  // last reference drops.
  Status AcquireEvent(std::shared_ptr<Event>* out);

  // A per-device object created once by `make` (a library handle bound to
  // the compute stream, an algorithm cache) and kept for the device's life.
  Status GetOrCreateResource(const std::string& key,
                             const std::function<Status(std::shared_ptr<void>*)>& make,
                             std::shared_ptr<void>* out);

  // Blocks until every stream of the device is idle (an explicit Sync
  // point: tests, tools, shutdown).
  Status SynchronizeAll();

 private:
  GpuDeviceContext(Backend* backend, int ordinal);
  void ReleaseEvent(Event* event);

  Backend* const backend_;
  const int ordinal_;
  DeviceProperties properties_;
  int64_t memory_limit_ = 0;
  std::unique_ptr<Stream> compute_, host_to_device_, device_to_host_, device_to_device_;
  std::unique_ptr<BfcAllocator> device_allocator_;
  std::unique_ptr<BfcAllocator> pinned_allocator_;
  std::unique_ptr<Allocator> tagged_;  // device_allocator_, tagged with the ordinal
  // Declared last among the owners of device work: freed first.
  std::mutex mu_;  // guards free_events_ and resources_
  std::vector<std::unique_ptr<Event>> free_events_;
  std::map<std::string, std::shared_ptr<void>> resources_;
};

// The process's GPUs, each created once on first use and kept for the
// process's life (every session and worker of the process shares a GPU's
// memory and streams, as they share its hardware).
int ProcessGpuCount();
// How many of them a worker takes when asked for `requested` (-1: all).
int ProcessGpusToUse(int requested);
Status GetProcessGpuContext(int ordinal, GpuDeviceContext** out);

// Whether a tensor of `dtype` on a GPU device lives in host memory: int32,
// int64, bool, string, resource and variant (shapes, indices, flags and
// handles that host code reads).
bool LivesInHostMemoryOnGpu(DataType dtype);

// The GPU ordinal whose device memory `allocator` hands out, or -1 for any
// host allocator (plain or pinned).
int GpuOrdinalOfAllocator(const Allocator* allocator);

}  // namespace af::gpu
