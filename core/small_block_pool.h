// SmallBlockPool: tensor buffers of up to 4 KiB, carved from slabs per
// size class.
//
// Small tensors outlive the steps around them in queues (a shuffle queue
// of 28x28 images holds thousands of 3 KiB buffers for random times). In
// glibc's heap they sit between the short-lived allocations of every step,
// and the heap's free space, and so resident memory, creeps up for hours.
// Here each class keeps its own slabs: a class's memory is the high-water
// mark of its live blocks, whatever the order of frees.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace af {

class SmallBlockPool {
 public:
  static constexpr size_t kBlockAlignment = 64;
  static constexpr size_t kMaxBytes = 4096;
  static constexpr size_t kSlabBytes = size_t{256} << 10;

  SmallBlockPool() = default;
  ~SmallBlockPool();
  SmallBlockPool(const SmallBlockPool&) = delete;
  SmallBlockPool& operator=(const SmallBlockPool&) = delete;

  // A 64-byte aligned block of at least `bytes` (<= kMaxBytes); nullptr
  // when memory is out.
  void* Allocate(size_t bytes);
  // `bytes`: the size passed to Allocate.
  void Deallocate(void* ptr, size_t bytes);

  // Bytes of the slabs mapped so far (they are kept for the process's life).
  int64_t slab_bytes() const;
  // Bytes of free blocks in the slabs.
  int64_t free_bytes() const;

 private:
  static constexpr size_t kClasses = kMaxBytes / kBlockAlignment;
  struct FreeBlock {
    FreeBlock* next;
  };
  struct SizeClass {
    mutable std::mutex mu;  // guards free, free_blocks and slabs
    FreeBlock* free = nullptr;
    int64_t free_blocks = 0;
    int64_t slabs = 0;
  };
  static size_t ClassIndex(size_t bytes);
  // Maps a slab for class `index` and threads its blocks onto the free list.
  bool Grow(size_t index, SizeClass& c);

  std::array<SizeClass, kClasses> classes_;
  std::mutex slabs_mu_;  // guards slabs_
  std::vector<void*> slabs_;  // every slab, for the destructor
};

}  // namespace af
