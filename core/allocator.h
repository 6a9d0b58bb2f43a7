// Allocator: where tensor buffers come from. Each device owns one; the CPU
// allocator hands out 64-byte aligned memory and keeps usage statistics.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/buffer_cache.h"
#include "core/small_block_pool.h"

namespace af {

struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
  // Freed bytes the allocator keeps for reuse (not in use, still resident).
  int64_t bytes_cached = 0;
};

class Allocator {
 public:
  static constexpr size_t kDefaultAlignment = 64;

  virtual ~Allocator();
  virtual std::string Name() const = 0;
  // Returns nullptr when the memory cannot be had.
  virtual void* AllocateRaw(size_t alignment, size_t bytes) = 0;
  // `bytes` must be the size passed to AllocateRaw.
  virtual void DeallocateRaw(void* ptr, size_t bytes) = 0;
  virtual AllocatorStats GetStats() const = 0;
  // Whether the CPU can touch the memory directly (false for GPU memory).
  virtual bool IsHostAccessible() const { return true; }
  // What an out-of-memory error should add after a failed AllocateRaw of
  // `bytes` (bytes in use, the limit, the largest free chunk), or "".
  virtual std::string OutOfMemoryDetail(size_t bytes) const { return {}; }
};

// The op whose allocation is under way on this thread ("" when unknown):
// allocators that keep per-site statistics read it.
const std::string& CurrentAllocationSite();
// Names the allocation site for the current thread while it lives.
class ScopedAllocationSite {
 public:
  explicit ScopedAllocationSite(const std::string& site);
  ~ScopedAllocationSite();
  ScopedAllocationSite(const ScopedAllocationSite&) = delete;
  ScopedAllocationSite& operator=(const ScopedAllocationSite&) = delete;

 private:
  const std::string* previous_;
};

// Counts bytes in use and the peak; safe to use from many threads.
class CountingAllocatorBase : public Allocator {
 public:
  AllocatorStats GetStats() const override;
  void ResetPeak();

 protected:
  void RecordAlloc(size_t bytes);
  void RecordFree(size_t bytes);

 private:
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> largest_{0};
};

// Tensor memory stays out of malloc's heap, where long-lived queue elements
// and per-step garbage fragment each other: buffers up to 4 KiB come from a
// SmallBlockPool, larger ones from a BufferCache. Alignments above 64 bytes
// (small) or a page (large) are refused (nullptr).
class CpuAllocator final : public CountingAllocatorBase {
 public:
  CpuAllocator();
  std::string Name() const override { return "cpu"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;
  AllocatorStats GetStats() const override;
  // Returns the cached free buffers to the kernel.
  void ReleaseCached();

 private:
  std::unique_ptr<SmallBlockPool> small_;
  std::unique_ptr<BufferCache> cache_;
};

// The process-wide CPU allocator (never destroyed).
Allocator* GetCpuAllocator();

}  // namespace af
