// The buffer cache and the small-block pool: size classes, reuse, bounds,
// and the CPU allocator built on them.
#include <cstring>
#include <set>

#include <boost/test/unit_test.hpp>

#include "core/allocator.h"
#include "core/buffer_cache.h"
#include "core/small_block_pool.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(tensor_memory)

BOOST_AUTO_TEST_CASE(class_bytes_bound_the_waste_and_are_monotone) {
  size_t previous = 0;
  for (size_t bytes = BufferCache::kMinCachedBytes + 1; bytes < (size_t{64} << 20);
       bytes += bytes / 7 + 13) {
    const size_t block = BufferCache::ClassBytes(bytes);
    BOOST_TEST_CONTEXT("bytes " << bytes) {
      BOOST_TEST(block >= bytes);
      BOOST_TEST(block % 4096 == 0u);
      // One eighth of the doubling, or one page, whichever is larger.
      BOOST_TEST(block - bytes <= std::max<size_t>(bytes / 8, 4096));
      BOOST_TEST(block >= previous);
    }
    previous = block;
  }
  // Every request of one class gets the same block.
  BOOST_TEST(BufferCache::ClassBytes(1 << 20) == size_t{1} << 20);
  BOOST_TEST(BufferCache::ClassBytes((1 << 20) + 1) == (size_t{1} << 20) + (size_t{1} << 17));
  BOOST_TEST(BufferCache::ClassBytes((1 << 20) + (1 << 17)) == (size_t{1} << 20) + (size_t{1} << 17));
}

BOOST_AUTO_TEST_CASE(a_freed_block_serves_the_next_request_of_its_class) {
  BufferCache cache(size_t{1} << 20);
  void* a = cache.Allocate(100000);
  std::memset(a, 1, 100000);
  cache.Deallocate(a, 100000, 0);
  BOOST_TEST(cache.cached_bytes() == static_cast<int64_t>(BufferCache::ClassBytes(100000)));
  void* b = cache.Allocate(99000);  // same class
  BOOST_TEST(b == a);
  BOOST_TEST(cache.cached_bytes() == 0);
  void* c = cache.Allocate(300000);  // another class: a new block
  BOOST_TEST(c != a);
  cache.Deallocate(b, 99000, 0);
  cache.Deallocate(c, 300000, 0);
  BOOST_TEST(cache.mapped_bytes() == cache.cached_bytes());
  cache.Release();
  BOOST_TEST(cache.cached_bytes() == 0);
  BOOST_TEST(cache.mapped_bytes() == 0);
}

BOOST_AUTO_TEST_CASE(the_cache_keeps_at_most_its_limit_or_the_peak_in_use) {
  const size_t block = BufferCache::ClassBytes(1 << 20);
  BufferCache cache(2 * block);
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(cache.Allocate(1 << 20));
  BOOST_TEST(cache.mapped_bytes() == static_cast<int64_t>(5 * block));
  for (void* p : blocks) cache.Deallocate(p, 1 << 20, 0);
  BOOST_TEST(cache.cached_bytes() == static_cast<int64_t>(2 * block));
  BOOST_TEST(cache.mapped_bytes() == static_cast<int64_t>(2 * block));
  // A peak in use above the limit lets the cache keep one working set.
  blocks.clear();
  for (int i = 0; i < 5; ++i) blocks.push_back(cache.Allocate(1 << 20));
  for (void* p : blocks) cache.Deallocate(p, 1 << 20, static_cast<int64_t>(5 * block));
  BOOST_TEST(cache.cached_bytes() == static_cast<int64_t>(5 * block));
}

// A workload that moves on to another size (a server receiving 1 MiB
// tensors, then 64 MiB ones) keeps its new block: the blocks of the class
// used longest ago make room, within the same bound.
BOOST_AUTO_TEST_CASE(a_freed_block_evicts_the_least_recently_used_classes_to_fit) {
  const size_t small = BufferCache::ClassBytes(1 << 20);
  const size_t medium = BufferCache::ClassBytes(3 << 20);
  const size_t large = BufferCache::ClassBytes(8 << 20);
  BufferCache cache(large);
  void* a = cache.Allocate(1 << 20);
  void* b = cache.Allocate(1 << 20);
  void* m = cache.Allocate(3 << 20);
  cache.Deallocate(a, 1 << 20, 0);
  cache.Deallocate(b, 1 << 20, 0);
  cache.Deallocate(m, 3 << 20, 0);  // the small class is now the older one
  BOOST_TEST(cache.cached_bytes() == static_cast<int64_t>(2 * small + medium));
  void* l = cache.Allocate(8 << 20);
  cache.Deallocate(l, 8 << 20, static_cast<int64_t>(large));
  // Both small blocks went first; the medium one, used later, also had to.
  BOOST_TEST(cache.cached_bytes() == static_cast<int64_t>(large));
  BOOST_TEST(cache.mapped_bytes() == static_cast<int64_t>(large));
  void* again = cache.Allocate(8 << 20);
  BOOST_TEST(again == l);  // reused, not mapped afresh
  cache.Deallocate(again, 8 << 20, static_cast<int64_t>(large));
  // A bound that leaves room: only the oldest class goes.
  BufferCache roomy(large + medium);
  a = roomy.Allocate(1 << 20);
  m = roomy.Allocate(3 << 20);
  roomy.Deallocate(a, 1 << 20, 0);
  roomy.Deallocate(m, 3 << 20, 0);
  l = roomy.Allocate(8 << 20);
  roomy.Deallocate(l, 8 << 20, 0);
  BOOST_TEST(roomy.cached_bytes() == static_cast<int64_t>(large + medium));
  void* reused = roomy.Allocate(3 << 20);
  BOOST_TEST(reused == m);
  roomy.Deallocate(reused, 3 << 20, 0);
}

BOOST_AUTO_TEST_CASE(a_repeating_workload_maps_no_new_memory_after_its_first_round) {
  BufferCache cache(size_t{1} << 30);
  const std::vector<size_t> sizes = {5000, 80000, 80000, 1 << 20, 3 << 20, 123456, 7777777};
  int64_t after_first = 0;
  for (int round = 0; round < 50; ++round) {
    std::vector<std::pair<void*, size_t>> live;
    for (size_t bytes : sizes) live.emplace_back(cache.Allocate(bytes), bytes);
    // Free in a different order each round.
    for (size_t i = 0; i < live.size(); ++i) {
      auto& [p, bytes] = live[(i * 3 + round) % live.size()];
      if (p == nullptr) continue;
      cache.Deallocate(p, bytes, 0);
      p = nullptr;
    }
    for (auto& [p, bytes] : live)
      if (p != nullptr) cache.Deallocate(p, bytes, 0);
    if (round == 0) after_first = cache.mapped_bytes();
    BOOST_TEST(cache.mapped_bytes() == after_first);
  }
}

BOOST_AUTO_TEST_CASE(small_blocks_are_aligned_distinct_and_reused) {
  SmallBlockPool pool;
  std::set<void*> seen;
  std::vector<void*> blocks;
  for (int i = 0; i < 5000; ++i) {
    void* p = pool.Allocate(3136);  // one 28x28 float image
    BOOST_TEST_REQUIRE(p != nullptr);
    BOOST_TEST(reinterpret_cast<uintptr_t>(p) % SmallBlockPool::kBlockAlignment == 0u);
    BOOST_TEST(seen.insert(p).second);
    std::memset(p, i & 0xff, 3136);
    blocks.push_back(p);
  }
  // Freeing in any order and allocating the same count maps no new slab.
  const int64_t slabs = pool.slab_bytes();
  for (size_t i = 0; i < blocks.size(); i += 2) pool.Deallocate(blocks[i], 3136);
  for (size_t i = 1; i < blocks.size(); i += 2) pool.Deallocate(blocks[i], 3136);
  const int64_t per_slab = SmallBlockPool::kSlabBytes / 3136 * 3136;
  BOOST_TEST(pool.free_bytes() == slabs / static_cast<int64_t>(SmallBlockPool::kSlabBytes) * per_slab);
  for (int i = 0; i < 5000; ++i) BOOST_TEST(seen.count(pool.Allocate(3100)) == 1u);
  BOOST_TEST(pool.slab_bytes() == slabs);
  // Other classes have their own slabs.
  void* tiny = pool.Allocate(1);
  BOOST_TEST(seen.count(tiny) == 0u);
  BOOST_TEST(pool.slab_bytes() == slabs + static_cast<int64_t>(SmallBlockPool::kSlabBytes));
}

BOOST_AUTO_TEST_CASE(cpu_allocator_counts_and_caches) {
  CpuAllocator allocator;
  void* small = allocator.AllocateRaw(64, 100);
  void* large = allocator.AllocateRaw(64, 1 << 20);
  BOOST_TEST(reinterpret_cast<uintptr_t>(small) % 64 == 0u);
  BOOST_TEST(reinterpret_cast<uintptr_t>(large) % 4096 == 0u);
  BOOST_TEST(allocator.GetStats().bytes_in_use == 100 + (1 << 20));
  const int64_t small_slack = allocator.GetStats().bytes_cached;  // the rest of the slab
  allocator.DeallocateRaw(small, 100);
  allocator.DeallocateRaw(large, 1 << 20);
  AllocatorStats stats = allocator.GetStats();
  BOOST_TEST(stats.bytes_in_use == 0);
  BOOST_TEST(stats.bytes_cached ==
             small_slack + 128 + static_cast<int64_t>(BufferCache::ClassBytes(1 << 20)));
  BOOST_TEST(allocator.AllocateRaw(64, 1 << 20) == large);
  allocator.DeallocateRaw(large, 1 << 20);
  allocator.ReleaseCached();
  BOOST_TEST(allocator.GetStats().bytes_cached == small_slack + 128);  // slabs stay
  BOOST_TEST(allocator.AllocateRaw(128, 100) == nullptr);   // small: above 64 bytes
  BOOST_TEST(allocator.AllocateRaw(8192, 1 << 20) == nullptr);  // large: above a page
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
