// BfcAllocator: best-fit with coalescing over a few large regions of device
// memory.
//
// Asking the driver for memory (cudaMalloc) is slow and synchronizes the
// device, so the allocator takes large regions from a SubAllocator and carves
// them into chunks itself. Every chunk is a multiple of 256 bytes and starts
// on a 256-byte boundary. Free chunks sit in bins by power-of-two size class;
// a request takes the smallest free chunk that fits (best fit), split when
// it is larger; a freed chunk merges with its free neighbours in the region
// (coalescing), so free memory stays in as few pieces as the live chunks
// allow. Allocation and free cost O(log n) in the number of chunks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"

namespace af::gpu {

// Where the BFC allocator gets its large regions: cudaMalloc'd memory, an
// emulated device arena, or plain host memory in tests.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // `bytes` (a multiple of 256), or nullptr when the memory cannot be had.
  // Memory not aligned to 256 bytes loses its unaligned head.
  virtual void* Alloc(size_t bytes) = 0;
  // `ptr` and `bytes`: a region Alloc returned, freed once.
  virtual void Free(void* ptr, size_t bytes) = 0;
  virtual bool IsHostAccessible() const = 0;
};

struct BfcOptions {
  // Bytes the allocator may take from the SubAllocator in total (0: no
  // limit; the SubAllocator's failures are the only bound).
  size_t memory_limit = 0;
  // Nonzero: a first region of this many bytes (capped by the limit) is
  // taken at construction. 0: regions grow on demand, the first
  // min(limit, max(request, 2 MiB)). Either way each later region is double
  // the previous one (or the request, when larger), capped by what the limit
  // leaves; when the SubAllocator refuses a size, halves are tried down to
  // the request.
  size_t initial_region_bytes = 0;
  // Before failing an allocation, free whole unused regions back to the
  // SubAllocator and retry (a larger region may then fit under the limit).
  bool garbage_collect_on_oom = true;
};

struct AllocationSiteStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
};

class BfcAllocator final : public af::Allocator {
 public:
  // Every chunk's size and address is a multiple of this.
  static constexpr size_t kMinChunkBytes = 256;
  // Bin i holds free chunks of [256 << i, 256 << (i + 1)) bytes; the last
  // bin holds everything from 256 MiB up.
  static constexpr int kNumBins = 21;
  // The first on-demand region is at least this large.
  static constexpr size_t kMinRegionBytes = size_t{2} << 20;

  BfcAllocator(std::unique_ptr<SubAllocator> sub, BfcOptions options, std::string name);
  // Frees all regions back to the SubAllocator (chunks still in use are
  // lost with them).
  ~BfcAllocator() override;
  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  std::string Name() const override;
  // nullptr when no chunk can be had, or for an alignment above 256 bytes
  // (all chunks are 256-byte aligned, so smaller alignments hold). A request
  // of 0 bytes gets a unique pointer to a minimal (256-byte) chunk.
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  // The chunk is known by `ptr`; `bytes` is not needed. Aborts for a pointer
  // this allocator did not hand out (or one freed already).
  void DeallocateRaw(void* ptr, size_t bytes) override;
  // Bytes are chunk bytes (requests rounded up to 256): bytes_in_use,
  // peak_bytes_in_use and largest_alloc_size; bytes_cached is the region
  // bytes not in use.
  af::AllocatorStats GetStats() const override;
  bool IsHostAccessible() const override;
  // "; allocator NAME: X in use of a Y limit, Z held in N regions, largest
  // free chunk W, fragmentation F".
  std::string OutOfMemoryDetail(size_t bytes) const override;

  size_t LargestFreeChunk() const;
  size_t BytesInUse() const;
  // Bytes taken from the SubAllocator.
  size_t RegionBytes() const;
  // 1 - largest free chunk / total free bytes (0 when nothing is free): how
  // badly free memory is split.
  double Fragmentation() const;
  // Per allocation site: the op type named by af::CurrentAllocationSite() at
  // AllocateRaw time ("" grouped as "(unknown)"), in chunk bytes.
  std::map<std::string, AllocationSiteStats> SiteStatistics() const;
  // Regions, bins and chunks, for debugging.
  std::string DebugString() const;
  // Checks every invariant (chunks tile regions exactly, no two adjacent
  // free chunks, bins hold exactly the free chunks, byte counters add up);
  // returns false and fills *why on the first violation. For tests.
  bool CheckInvariants(std::string* why) const;

 private:
  struct Region;
  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;  // a multiple of kMinChunkBytes
    bool in_use = false;
    Chunk* prev = nullptr;  // neighbours in address order within the region
    Chunk* next = nullptr;
    Region* region = nullptr;
    // The site's entry in sites_ while in use (map nodes do not move).
    AllocationSiteStats* site = nullptr;
  };
  struct Region {
    void* base = nullptr;  // as the SubAllocator returned it
    size_t bytes = 0;      // as asked of the SubAllocator
    char* start = nullptr;  // base rounded up to 256 bytes: the first chunk
    size_t usable = 0;      // bytes the chunks tile from start
    Chunk* first = nullptr;
  };
  // Free chunks of a bin, smallest first, by address among equal sizes.
  struct BySizeThenAddress {
    bool operator()(const Chunk* a, const Chunk* b) const;
  };
  using Bin = std::set<Chunk*, BySizeThenAddress>;

  static size_t RoundUp(size_t bytes);
  static int BinIndex(size_t size);

  // The helpers below run with mu_ held.
  Chunk* FindFreeChunk(size_t size);
  // Takes a region big enough for `size`; false when the limit or the
  // SubAllocator refuses.
  bool Extend(size_t size);
  // Frees regions that hold one free chunk; returns how many.
  int FreeUnusedRegions();
  void InsertFree(Chunk* c);
  void RemoveFree(Chunk* c);
  size_t LargestFreeChunkLocked() const;
  size_t FreeBytesLocked() const;
  double FragmentationLocked() const;

  const std::unique_ptr<SubAllocator> sub_;
  const BfcOptions options_;
  const size_t limit_;  // options_.memory_limit, SIZE_MAX for none
  const std::string name_;

  // mu_ guards everything below: the regions and their chunk lists, the
  // bins, the in-use map, the size of the next region, the byte counters,
  // the statistics and the per-site table.
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::array<Bin, kNumBins> bins_;
  // Chunks handed out, by their address.
  std::unordered_map<const void*, Chunk*> in_use_;
  size_t next_region_bytes_ = 0;
  size_t region_bytes_ = 0;   // sum of Region::bytes
  size_t usable_bytes_ = 0;   // sum of Region::usable
  size_t bytes_in_use_ = 0;   // sum of in-use chunk sizes
  af::AllocatorStats stats_;  // num_allocs, peak and largest (the rest derived)
  std::map<std::string, AllocationSiteStats, std::less<>> sites_;
};

}  // namespace af::gpu
