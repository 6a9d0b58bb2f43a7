// The GPU runtime seam: what a GPU device needs from the machine (device
// memory, streams, events, asynchronous copies, pinned host memory, device
// properties), behind one small interface with two backends. The CUDA
// backend (kernels/gpu/cuda/) wraps the CUDA runtime; the emulated backend
// (core/gpu/emulated_backend.h) runs each stream as an ordered queue on its
// own thread, so that every piece of logic above it is tested where no GPU
// exists. Nothing here names a CUDA type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"

namespace af::gpu {

struct DeviceProperties {
  std::string name;
  int64_t total_memory = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  bool emulated = false;
};

// A point in a stream's work. Recorded on one stream, waited on by others.
class Event {
 public:
  virtual ~Event() = default;
  // True once the work enqueued before the last Record has finished (true
  // when never recorded).
  virtual bool IsComplete() = 0;
  // Blocks the calling thread until then; for tests and tools, never for
  // kernels.
  virtual Status Synchronize() = 0;
  virtual void* native() = 0;  // cudaEvent_t; nullptr when emulated
};

// An ordered queue of device work. Every operation is asynchronous: it is
// enqueued and returns; a failure of the work itself shows up in a later
// call (sticky, as CUDA reports it).
class Stream {
 public:
  virtual ~Stream() = default;
  virtual int device() const = 0;
  virtual Status CopyHostToDevice(void* dst, const void* src, size_t bytes) = 0;
  virtual Status CopyDeviceToHost(void* dst, const void* src, size_t bytes) = 0;
  // `src` may live on another device of the same backend (a peer copy).
  virtual Status CopyDeviceToDevice(void* dst, const void* src, int src_device, size_t bytes) = 0;
  virtual Status Memset(void* dst, uint8_t value, size_t bytes) = 0;
  // Marks this point of the stream in `event`.
  virtual Status Record(Event* event) = 0;
  // Work enqueued after this call starts only once `event` has completed.
  virtual Status Wait(Event* event) = 0;
  // Runs `fn` on a host thread once all work enqueued before has finished.
  // `fn` must not call into the backend (CUDA forbids it); it may schedule
  // work elsewhere.
  virtual Status AddCallback(std::function<void()> fn) = 0;
  // The emulated backend runs `kernel` on the stream's thread in order, as
  // a device would run a kernel; the CUDA backend refuses (CUDA kernels are
  // launched on native()).
  virtual Status LaunchHostKernel(std::function<void()> kernel) = 0;
  // Blocks until all enqueued work has finished; for tests, tools and
  // explicit device syncs only.
  virtual Status Synchronize() = 0;
  virtual void* native() = 0;  // cudaStream_t; nullptr when emulated
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;  // "cuda" or "emulated"
  virtual bool IsEmulated() const = 0;
  virtual int DeviceCount() = 0;
  virtual Status GetProperties(int device, DeviceProperties* out) = 0;
  // Free and total device memory now.
  virtual Status MemoryInfo(int device, int64_t* free_bytes, int64_t* total_bytes) = 0;
  virtual Status AllocateDevice(int device, size_t bytes, void** ptr) = 0;
  virtual Status FreeDevice(int device, void* ptr) = 0;
  // Page-locked host memory, the source and target of asynchronous copies.
  virtual Status AllocatePinnedHost(size_t bytes, void** ptr) = 0;
  virtual Status FreePinnedHost(void* ptr) = 0;
  virtual Status CreateStream(int device, std::unique_ptr<Stream>* out) = 0;
  virtual Status CreateEvent(int device, std::unique_ptr<Event>* out) = 0;
};

// The backend this process's GPU devices use: ACTORFLOW_EMULATED_GPUS=N
// (N > 0) gives N emulated GPUs; otherwise CUDA's when the build has it and
// the driver reports a device; otherwise nullptr (no GPUs).
Backend* ProcessBackend();
// Makes the next ProcessBackend() calls answer `n` emulated GPUs (0: back to
// the environment's choice). For tests and the --emulated_gpus option; call
// before any device is created.
void UseEmulatedGpus(int n);

// How the CUDA backend, built only with the toolkit, offers itself: a
// factory that returns nullptr when no driver or device is there.
using BackendFactory = std::function<Backend*()>;
void RegisterCudaBackendFactory(BackendFactory factory);
bool CudaBuilt();

}  // namespace af::gpu
