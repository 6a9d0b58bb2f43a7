#include "core/small_block_pool.h"

#include <algorithm>

#include <sys/mman.h>

#include "core/asan_poison.h"

namespace af {

SmallBlockPool::~SmallBlockPool() {
  for (void* slab : slabs_) {
    UnpoisonMemory(slab, kSlabBytes);  // the next mapping there starts clean
    UnregisterLeakRoot(slab, kSlabBytes);
    munmap(slab, kSlabBytes);
  }
}

size_t SmallBlockPool::ClassIndex(size_t bytes) {
  return (std::max<size_t>(bytes, 1) - 1) / kBlockAlignment;
}

bool SmallBlockPool::Grow(size_t index, SizeClass& c) {
  void* slab =
      mmap(nullptr, kSlabBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (slab == MAP_FAILED) return false;
  RegisterLeakRoot(slab, kSlabBytes);
  {
    std::lock_guard<std::mutex> lock(slabs_mu_);
    slabs_.push_back(slab);
  }
  const size_t block = (index + 1) * kBlockAlignment;
  char* base = static_cast<char*>(slab);
  // Thread back to front so that blocks are handed out in address order.
  for (size_t offset = (kSlabBytes / block) * block; offset >= block;) {
    offset -= block;
    auto* b = reinterpret_cast<FreeBlock*>(base + offset);
    b->next = c.free;
    c.free = b;
    ++c.free_blocks;
  }
  ++c.slabs;
  PoisonMemory(slab, kSlabBytes);
  return true;
}

void* SmallBlockPool::Allocate(size_t bytes) {
  const size_t index = ClassIndex(bytes);
  SizeClass& c = classes_[index];
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.free == nullptr && !Grow(index, c)) return nullptr;
  FreeBlock* b = c.free;
  UnpoisonMemory(b, sizeof(FreeBlock));
  c.free = b->next;
  --c.free_blocks;
  UnpoisonMemory(b, std::max<size_t>(bytes, 1));
  return b;
}

void SmallBlockPool::Deallocate(void* ptr, size_t bytes) {
  SizeClass& c = classes_[ClassIndex(bytes)];
  auto* b = static_cast<FreeBlock*>(ptr);
  const size_t block = (ClassIndex(bytes) + 1) * kBlockAlignment;
  std::lock_guard<std::mutex> lock(c.mu);
  UnpoisonMemory(b, sizeof(FreeBlock));
  b->next = c.free;
  c.free = b;
  ++c.free_blocks;
  PoisonMemory(b, block);
}

int64_t SmallBlockPool::slab_bytes() const {
  int64_t total = 0;
  for (const SizeClass& c : classes_) {
    std::lock_guard<std::mutex> lock(c.mu);
    total += c.slabs * static_cast<int64_t>(kSlabBytes);
  }
  return total;
}

int64_t SmallBlockPool::free_bytes() const {
  int64_t total = 0;
  for (size_t index = 0; index < kClasses; ++index) {
    const SizeClass& c = classes_[index];
    std::lock_guard<std::mutex> lock(c.mu);
    total += c.free_blocks * static_cast<int64_t>((index + 1) * kBlockAlignment);
  }
  return total;
}

}  // namespace af
