#include "core/buffer_cache.h"

#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "core/asan_poison.h"

namespace af {

namespace {
constexpr int kLog2Classes = std::countr_zero(static_cast<unsigned>(BufferCache::kClassesPerDoubling));
constexpr size_t kPageBytes = 4096;
}  // namespace

BufferCache::BufferCache(size_t min_cache_limit) : min_cache_limit_(min_cache_limit) {}

BufferCache::~BufferCache() { Release(); }

int BufferCache::ClassIndex(size_t bytes) {
  // Class c covers (start of its doubling) + k * step, step = doubling / 8.
  const int log2 = std::bit_width(bytes - 1) - 1;  // floor(log2(bytes - 1))
  const size_t step = size_t{1} << (log2 - kLog2Classes);
  const size_t k = (bytes - 1 - (size_t{1} << log2)) / step;  // 0..7
  return (log2 - 12) * BufferCache::kClassesPerDoubling + static_cast<int>(k);
}

size_t BufferCache::ClassBytes(size_t bytes) {
  bytes = std::max(bytes, kMinCachedBytes + 1);
  const int log2 = std::bit_width(bytes - 1) - 1;
  const size_t step = size_t{1} << (log2 - kLog2Classes);
  const size_t rounded = ((bytes - 1) / step + 1) * step;
  return (rounded + kPageBytes - 1) / kPageBytes * kPageBytes;
}

void* BufferCache::Map(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  RegisterLeakRoot(p, bytes);
  return p;
}

void BufferCache::Unmap(void* ptr, size_t bytes) {
  UnpoisonMemory(ptr, bytes);  // the next mapping there starts clean
  UnregisterLeakRoot(ptr, bytes);
  munmap(ptr, bytes);
}

void* BufferCache::Allocate(size_t requested) {
  const size_t bytes = std::max(requested, kMinCachedBytes + 1);
  const int index = ClassIndex(bytes);
  const size_t block = ClassBytes(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<size_t>(index) < free_.size() && !free_[index].empty()) {
      last_used_[index] = ++use_clock_;
      void* p = free_[index].back();
      free_[index].pop_back();
      cached_bytes_ -= static_cast<int64_t>(block);
      UnpoisonMemory(p, requested);
      return p;
    }
  }
  void* p = Map(block);
  if (p == nullptr) {
    // Out of address space or memory: what the cache holds may be enough.
    Release();
    p = Map(block);
    if (p == nullptr) return nullptr;
  }
  PoisonMemory(static_cast<char*>(p) + requested, block - requested);
  std::lock_guard<std::mutex> lock(mu_);
  mapped_bytes_ += static_cast<int64_t>(block);
  return p;
}

void BufferCache::Deallocate(void* ptr, size_t bytes, int64_t peak_in_use) {
  bytes = std::max(bytes, kMinCachedBytes + 1);
  const int index = ClassIndex(bytes);
  const int64_t block = static_cast<int64_t>(ClassBytes(bytes));
  const int64_t limit = std::max(static_cast<int64_t>(min_cache_limit_), peak_in_use);
  std::vector<std::pair<void*, size_t>> evicted;  // unmapped outside the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<size_t>(index) >= free_.size()) {
      free_.resize(index + 1);
      last_used_.resize(index + 1, 0);
    }
    last_used_[index] = ++use_clock_;
    // Room for this block from the classes used longest ago (never from
    // its own: the cache already holds that class's working set).
    while (block <= limit && cached_bytes_ + block > limit) {
      int victim = -1;
      for (size_t c = 0; c < free_.size(); ++c) {
        if (static_cast<int>(c) == index || free_[c].empty()) continue;
        if (victim < 0 || last_used_[c] < last_used_[victim]) victim = static_cast<int>(c);
      }
      if (victim < 0) break;
      const size_t victim_bytes = ClassIndexBytes(victim);
      evicted.emplace_back(free_[victim].back(), victim_bytes);
      free_[victim].pop_back();
      cached_bytes_ -= static_cast<int64_t>(victim_bytes);
      mapped_bytes_ -= static_cast<int64_t>(victim_bytes);
    }
    if (cached_bytes_ + block <= limit) {
      free_[index].push_back(ptr);
      cached_bytes_ += block;
      PoisonMemory(ptr, static_cast<size_t>(block));
      ptr = nullptr;
    } else {
      mapped_bytes_ -= block;
    }
  }
  for (const auto& [p, size] : evicted) Unmap(p, size);
  if (ptr != nullptr) Unmap(ptr, static_cast<size_t>(block));
}

void BufferCache::Release() {
  std::vector<std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
    mapped_bytes_ -= cached_bytes_;
    cached_bytes_ = 0;
  }
  for (size_t index = 0; index < blocks.size(); ++index) {
    if (blocks[index].empty()) continue;
    const size_t block = ClassIndexBytes(static_cast<int>(index));
    for (void* p : blocks[index]) Unmap(p, block);
  }
}

size_t BufferCache::ClassIndexBytes(int index) {
  // Any request of the class maps to the same block size; take the
  // class's largest request to recover it.
  const int log2 = index / kClassesPerDoubling + 12;
  const size_t k = static_cast<size_t>(index % kClassesPerDoubling);
  const size_t step = size_t{1} << (log2 - kLog2Classes);
  const size_t largest_request = (size_t{1} << log2) + (k + 1) * step;
  return ClassBytes(largest_request);
}

int64_t BufferCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_bytes_;
}

int64_t BufferCache::mapped_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return mapped_bytes_;
}

}  // namespace af
