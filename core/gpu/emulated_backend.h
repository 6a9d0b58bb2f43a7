// The emulated GPU backend: each stream is an ordered queue run by its own
// thread, events and waits are real (a stream that waits blocks its thread
// until the event's stream has reached it), and device memory is a
// separate arena of its own mappings that the copy functions police: a
// host pointer given where device memory belongs (or the reverse) is an
// INTERNAL error, and freed device memory is unmapped, so a stale host
// read faults instead of reading stale data. New device memory is filled
// with 0xFF bytes (NaN as float), so reading what no one wrote shows.
// Per-stream delays make ordering bugs show up in tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "core/gpu/gpu_backend.h"

namespace af::gpu {

struct EmulatedBackendOptions {
  int num_devices = 1;
  // Device memory each emulated GPU reports and may hand out.
  int64_t memory_per_device = int64_t{4} << 30;
};

std::unique_ptr<Backend> NewEmulatedBackend(const EmulatedBackendOptions& options);

// Every operation enqueued on `stream` (an emulated one) later waits
// `delay` before it runs. For tests that expose missing waits.
void SetEmulatedStreamDelay(Stream* stream, std::chrono::microseconds delay);

// Whether `ptr` points into live emulated device memory.
bool IsEmulatedDeviceMemory(const void* ptr);

}  // namespace af::gpu
