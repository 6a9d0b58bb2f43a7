// BufferCache: keeps freed tensor buffers, by size class, for the next
// allocation of the same class.
//
// A training or evaluation step frees and reallocates the same buffers
// every step. Handing them back to glibc makes every step fault fresh
// pages (when they were mapped) or, when the heap keeps them, scatters
// them over per-thread arenas: buffers freed on one thread and wanted on
// another grow a second arena, and resident memory creeps up at every
// change of batch size (an end-of-epoch evaluation). Keeping whole blocks
// per size class makes resident memory the high-water mark of each class,
// which a repeating workload reaches in its first epoch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace af {

class BufferCache {
 public:
  // Smaller requests are not for this cache (see SmallBlockPool).
  static constexpr size_t kMinCachedBytes = 4096;
  // Eight classes per doubling: at most 12.5% of a block is unused.
  static constexpr int kClassesPerDoubling = 8;

  // `min_cache_limit`: cached (free) bytes above which freed blocks go back
  // to the kernel, unless the peak of bytes in use is higher still; so the
  // cache never holds more than one working set of a long-running job.
  explicit BufferCache(size_t min_cache_limit);
  ~BufferCache();
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  // The block size a request of `bytes` gets (bytes >= kMinCachedBytes).
  static size_t ClassBytes(size_t bytes);

  // A block of ClassBytes(bytes), page aligned; nullptr when memory is out.
  void* Allocate(size_t bytes);
  // `bytes`: the size passed to Allocate. `peak_in_use`: the owner's peak
  // of bytes in use, which bounds what the cache keeps. When the block does
  // not fit under that bound, blocks of the classes used longest ago go
  // back to the kernel to make room: the block just freed is the one a
  // repeating workload asks for next (a step that receives a 64 MiB tensor
  // each time would otherwise fault in fresh pages every step once a few
  // blocks of an earlier phase sit in the cache).
  void Deallocate(void* ptr, size_t bytes, int64_t peak_in_use);

  // Returns every cached block to the kernel.
  void Release();
  int64_t cached_bytes() const;
  // Bytes of all blocks mapped by this cache, cached or in use.
  int64_t mapped_bytes() const;

 private:
  static int ClassIndex(size_t bytes);
  // The block size of every request of class `index`.
  static size_t ClassIndexBytes(int index);
  static void* Map(size_t bytes);
  static void Unmap(void* ptr, size_t bytes);

  const size_t min_cache_limit_;
  mutable std::mutex mu_;  // guards free_, last_used_, use_clock_, cached_bytes_, mapped_bytes_
  std::vector<std::vector<void*>> free_;  // per class index
  std::vector<uint64_t> last_used_;       // per class index: use_clock_ at its last use
  uint64_t use_clock_ = 0;
  int64_t cached_bytes_ = 0;
  int64_t mapped_bytes_ = 0;
};

}  // namespace af
