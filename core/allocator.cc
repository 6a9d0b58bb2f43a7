#include "core/allocator.h"

#include <algorithm>
#include <cstdlib>

namespace af {

Allocator::~Allocator() = default;

namespace {
const std::string kNoSite;
thread_local const std::string* current_site = &kNoSite;
}  // namespace

const std::string& CurrentAllocationSite() { return *current_site; }

ScopedAllocationSite::ScopedAllocationSite(const std::string& site) : previous_(current_site) {
  current_site = &site;
}

ScopedAllocationSite::~ScopedAllocationSite() { current_site = previous_; }

AllocatorStats CountingAllocatorBase::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  s.bytes_in_use = in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  s.largest_alloc_size = largest_.load(std::memory_order_relaxed);
  return s;
}

void CountingAllocatorBase::ResetPeak() {
  peak_.store(in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

namespace {
void RaiseTo(std::atomic<int64_t>& target, int64_t value) {
  int64_t cur = target.load(std::memory_order_relaxed);
  while (value > cur &&
         !target.compare_exchange_weak(cur, value, std::memory_order_relaxed)) {
  }
}
}  // namespace

void CountingAllocatorBase::RecordAlloc(size_t bytes) {
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t now =
      in_use_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) +
      static_cast<int64_t>(bytes);
  RaiseTo(peak_, now);
  RaiseTo(largest_, static_cast<int64_t>(bytes));
}

void CountingAllocatorBase::RecordFree(size_t bytes) {
  in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

namespace {
constexpr size_t kPageBytes = 4096;
// Below this much cached memory, freed blocks are always kept.
constexpr size_t kMinCacheLimit = size_t{64} << 20;
}  // namespace

CpuAllocator::CpuAllocator()
    : small_(std::make_unique<SmallBlockPool>()),
      cache_(std::make_unique<BufferCache>(kMinCacheLimit)) {}

void* CpuAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  alignment = std::max(alignment, kDefaultAlignment);
  void* p = nullptr;
  if (bytes > SmallBlockPool::kMaxBytes) {
    if (alignment > kPageBytes) return nullptr;
    p = cache_->Allocate(bytes);
  } else {
    if (alignment > SmallBlockPool::kBlockAlignment) return nullptr;
    p = small_->Allocate(bytes);
  }
  if (p != nullptr) RecordAlloc(bytes);
  return p;
}

void CpuAllocator::DeallocateRaw(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  RecordFree(bytes);
  if (bytes > SmallBlockPool::kMaxBytes) {
    cache_->Deallocate(ptr, bytes, CountingAllocatorBase::GetStats().peak_bytes_in_use);
  } else {
    small_->Deallocate(ptr, bytes);
  }
}

AllocatorStats CpuAllocator::GetStats() const {
  AllocatorStats s = CountingAllocatorBase::GetStats();
  s.bytes_cached = cache_->cached_bytes() + small_->free_bytes();
  return s;
}

void CpuAllocator::ReleaseCached() { cache_->Release(); }

Allocator* GetCpuAllocator() {
  static CpuAllocator* const allocator = new CpuAllocator();
  return allocator;
}

}  // namespace af
