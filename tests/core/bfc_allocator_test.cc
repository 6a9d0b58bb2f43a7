// The best-fit-with-coalescing allocator over host memory: chunk reuse,
// splitting and merging, region growth and the memory limit, statistics,
// and a randomized run checked against a model of the live allocations.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/allocator.h"
#include "core/gpu/bfc_allocator.h"

namespace af::gpu {
namespace {

constexpr size_t kKiB = size_t{1} << 10;
constexpr size_t kMiB = size_t{1} << 20;

// What the host SubAllocator below has handed out; shared with the test
// because the allocator owns the SubAllocator.
struct HostArena {
  std::atomic<int> live_regions{0};
  std::atomic<size_t> live_bytes{0};
  // Alloc refuses larger regions (a device with less memory than asked).
  size_t max_region_bytes = SIZE_MAX;
  // Sizes of the regions asked for, in order (written under the
  // allocator's lock).
  std::vector<size_t> region_sizes;
};

class HostSubAllocator final : public SubAllocator {
 public:
  explicit HostSubAllocator(std::shared_ptr<HostArena> arena) : arena_(std::move(arena)) {}
  void* Alloc(size_t bytes) override {
    arena_->region_sizes.push_back(bytes);
    if (bytes > arena_->max_region_bytes || bytes % 256 != 0) return nullptr;
    void* p = std::aligned_alloc(256, bytes);
    if (p == nullptr) return nullptr;
    ++arena_->live_regions;
    arena_->live_bytes += bytes;
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    --arena_->live_regions;
    arena_->live_bytes -= bytes;
    std::free(ptr);
  }
  bool IsHostAccessible() const override { return true; }

 private:
  std::shared_ptr<HostArena> arena_;
};

std::unique_ptr<BfcAllocator> MakeBfc(const std::shared_ptr<HostArena>& arena,
                                      size_t limit, size_t initial = 0, bool gc = true) {
  BfcOptions options;
  options.memory_limit = limit;
  options.initial_region_bytes = initial;
  options.garbage_collect_on_oom = gc;
  return std::make_unique<BfcAllocator>(std::make_unique<HostSubAllocator>(arena), options,
                                        "gpu_bfc");
}

size_t Rounded(size_t bytes) { return std::max<size_t>(256, (bytes + 255) / 256 * 256); }

char* Addr(void* p) { return static_cast<char*>(p); }
// Addresses as numbers: BOOST_TEST would compare char* as C strings.
uintptr_t U(const void* p) { return reinterpret_cast<uintptr_t>(p); }

#define AF_CHECK_INVARIANTS(allocator)                                   \
  do {                                                                   \
    std::string why_;                                                    \
    const bool ok_ = (allocator).CheckInvariants(&why_);                 \
    BOOST_TEST(ok_, "invariant broken: " << why_ << "\n"                 \
                                         << (allocator).DebugString());  \
  } while (0)

// Counts the free chunks DebugString lists.
int FreeChunksListed(const BfcAllocator& a) {
  const std::string s = a.DebugString();
  int n = 0;
  for (size_t pos = 0; (pos = s.find(" free\n", pos)) != std::string::npos; ++pos) ++n;
  return n;
}

BOOST_AUTO_TEST_SUITE(bfc_allocator)

BOOST_AUTO_TEST_CASE(allocations_are_aligned_distinct_and_writable) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 16 * kMiB);
  BOOST_TEST(a->Name() == "gpu_bfc");
  BOOST_TEST(a->IsHostAccessible());
  BOOST_TEST(a->RegionBytes() == 0u);  // on demand: nothing taken yet
  std::set<void*> seen;
  std::vector<std::pair<void*, size_t>> live;
  for (size_t alignment : {1, 8, 64, 128, 256}) {
    for (size_t bytes : {0, 1, 255, 256, 257, 1000, 4096, 70000}) {
      void* p = a->AllocateRaw(alignment, bytes);
      BOOST_TEST_REQUIRE(p != nullptr);
      BOOST_TEST(reinterpret_cast<uintptr_t>(p) % 256 == 0u);
      BOOST_TEST(seen.insert(p).second);
      std::memset(p, 0x5a, bytes);
      live.emplace_back(p, bytes);
      AF_CHECK_INVARIANTS(*a);
    }
  }
  // Chunks are 256-byte aligned, so larger alignments are refused.
  BOOST_TEST(a->AllocateRaw(512, 100) == nullptr);
  BOOST_TEST(a->AllocateRaw(48, 100) == nullptr);
  size_t expected = 0;
  for (auto [p, bytes] : live) expected += Rounded(bytes);
  BOOST_TEST(a->BytesInUse() == expected);
  const AllocatorStats stats = a->GetStats();
  BOOST_TEST(stats.num_allocs == static_cast<int64_t>(live.size()));
  BOOST_TEST(stats.bytes_in_use == static_cast<int64_t>(expected));
  BOOST_TEST(stats.peak_bytes_in_use == static_cast<int64_t>(expected));
  BOOST_TEST(stats.largest_alloc_size == static_cast<int64_t>(Rounded(70000)));
  BOOST_TEST(stats.bytes_cached == static_cast<int64_t>(a->RegionBytes() - expected));
  for (auto [p, bytes] : live) {
    a->DeallocateRaw(p, bytes);
    AF_CHECK_INVARIANTS(*a);
  }
  BOOST_TEST(a->BytesInUse() == 0u);
  BOOST_TEST(a->GetStats().peak_bytes_in_use == static_cast<int64_t>(expected));
  a->DeallocateRaw(nullptr, 0);  // a no-op
}

BOOST_AUTO_TEST_CASE(a_freed_chunk_serves_the_next_request) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 16 * kMiB);
  void* keep = a->AllocateRaw(64, 512);
  void* p = a->AllocateRaw(64, 3000);
  void* q = a->AllocateRaw(64, 512);
  a->DeallocateRaw(p, 3000);
  // Any request that fits the hole takes it: best fit, and no new region.
  void* r = a->AllocateRaw(64, 2900);
  BOOST_TEST(r == p);
  BOOST_TEST(arena->live_regions.load() == 1);
  a->DeallocateRaw(r, 2900);
  // A smaller one takes the front of the hole; the rest stays free.
  void* s = a->AllocateRaw(64, 1000);
  BOOST_TEST(s == p);
  void* t = a->AllocateRaw(64, 2048);
  BOOST_TEST(U(t) == U(p) + 1024);
  AF_CHECK_INVARIANTS(*a);
  for (void* x : {keep, q, s, t}) a->DeallocateRaw(x, 0);
  AF_CHECK_INVARIANTS(*a);
  BOOST_TEST(a->LargestFreeChunk() == a->RegionBytes());
}

BOOST_AUTO_TEST_CASE(best_fit_takes_the_smallest_hole_that_fits) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, kMiB, kMiB);
  // [big hole 8K][x][small hole 2K][y][medium hole 4K][z][rest free]
  void* big = a->AllocateRaw(1, 8 * kKiB);
  void* x = a->AllocateRaw(1, 256);
  void* small = a->AllocateRaw(1, 2 * kKiB);
  void* y = a->AllocateRaw(1, 256);
  void* medium = a->AllocateRaw(1, 4 * kKiB);
  void* z = a->AllocateRaw(1, 256);
  for (void* p : {big, small, medium}) a->DeallocateRaw(p, 0);
  AF_CHECK_INVARIANTS(*a);
  BOOST_TEST(a->AllocateRaw(1, 3 * kKiB) == medium);
  BOOST_TEST(a->AllocateRaw(1, 2 * kKiB) == small);
  BOOST_TEST(a->AllocateRaw(1, 5 * kKiB) == big);
  // The 3K request split the 4K hole; a 1K request takes that remainder.
  BOOST_TEST(U(a->AllocateRaw(1, kKiB)) == U(medium) + 3 * kKiB);
  AF_CHECK_INVARIANTS(*a);
  (void)x, (void)y, (void)z;
}

BOOST_AUTO_TEST_CASE(adjacent_free_chunks_merge_in_any_order) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, kMiB, kMiB);
  BOOST_TEST(a->RegionBytes() == kMiB);  // taken at construction
  std::array<int, 3> order = {0, 1, 2};
  int permutations = 0;
  do {
    BOOST_TEST_CONTEXT("free order " << order[0] << order[1] << order[2]) {
      std::array<void*, 3> p{};
      for (int i = 0; i < 3; ++i) {
        p[i] = a->AllocateRaw(256, 1000);
        AF_CHECK_INVARIANTS(*a);
      }
      // A fresh region hands out consecutive chunks from its front.
      BOOST_TEST(U(p[1]) == U(p[0]) + 1024);
      BOOST_TEST(U(p[2]) == U(p[1]) + 1024);
      BOOST_TEST(FreeChunksListed(*a) == 1);  // the tail
      for (int i : order) {
        a->DeallocateRaw(p[i], 1000);
        AF_CHECK_INVARIANTS(*a);
      }
      BOOST_TEST(FreeChunksListed(*a) == 1);
      BOOST_TEST(a->LargestFreeChunk() == kMiB);
      BOOST_TEST(a->BytesInUse() == 0u);
    }
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()));
  BOOST_TEST(permutations == 6);
  // Freeing the middle one of three leaves it a hole of its own; freeing
  // the first then merges the two, and the last merges all with the tail.
  void* p0 = a->AllocateRaw(1, 1024);
  void* p1 = a->AllocateRaw(1, 1024);
  void* p2 = a->AllocateRaw(1, 1024);
  a->DeallocateRaw(p1, 1024);
  BOOST_TEST(FreeChunksListed(*a) == 2);
  BOOST_TEST(a->LargestFreeChunk() == kMiB - 3 * kKiB);
  a->DeallocateRaw(p0, 1024);
  BOOST_TEST(FreeChunksListed(*a) == 2);
  BOOST_TEST(a->AllocateRaw(1, 2048) == p0);  // the merged hole, exactly
  a->DeallocateRaw(p0, 2048);
  a->DeallocateRaw(p2, 1024);
  BOOST_TEST(FreeChunksListed(*a) == 1);
  AF_CHECK_INVARIANTS(*a);
  BOOST_TEST(arena->live_regions.load() == 1);
}

BOOST_AUTO_TEST_CASE(regions_grow_by_doubling) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 0);  // no limit
  void* p = a->AllocateRaw(1, 1);
  BOOST_TEST(a->RegionBytes() == 2 * kMiB);  // at least 2 MiB at first
  void* q = a->AllocateRaw(1, 2 * kMiB);     // does not fit: a 4 MiB region
  BOOST_TEST(a->RegionBytes() == 6 * kMiB);
  void* r = a->AllocateRaw(1, 20 * kMiB);  // more than the doubled 8 MiB
  BOOST_TEST(a->RegionBytes() == 26 * kMiB);
  void* s = a->AllocateRaw(1, 1536 * kKiB);  // fits a hole: no new region
  BOOST_TEST(a->RegionBytes() == 26 * kMiB);
  BOOST_TEST((arena->region_sizes == std::vector<size_t>{2 * kMiB, 4 * kMiB, 20 * kMiB}));
  AF_CHECK_INVARIANTS(*a);
  for (void* x : {p, q, r, s}) a->DeallocateRaw(x, 0);
  BOOST_TEST(FreeChunksListed(*a) == 3);  // one per region
  BOOST_TEST(a->Fragmentation() > 0.0);   // spread over three regions
}

BOOST_AUTO_TEST_CASE(a_first_region_of_a_large_request_is_that_request) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 64 * kMiB);
  void* p = a->AllocateRaw(1, 5 * kMiB + 1);
  BOOST_TEST(a->RegionBytes() == 5 * kMiB + 256);
  a->DeallocateRaw(p, 0);
}

BOOST_AUTO_TEST_CASE(a_refused_region_size_is_halved_down_to_the_request) {
  auto arena = std::make_shared<HostArena>();
  arena->max_region_bytes = 600 * kKiB;
  auto a = MakeBfc(arena, 0);
  void* p = a->AllocateRaw(1, 100 * kKiB);
  BOOST_TEST_REQUIRE(p != nullptr);
  // 2 MiB, 1 MiB refused; 512 KiB taken.
  BOOST_TEST((arena->region_sizes == std::vector<size_t>{2 * kMiB, kMiB, 512 * kKiB}));
  BOOST_TEST(a->RegionBytes() == 512 * kKiB);
  BOOST_TEST(a->AllocateRaw(1, 700 * kKiB) == nullptr);  // no region can hold it
  a->DeallocateRaw(p, 0);
  AF_CHECK_INVARIANTS(*a);
}

BOOST_AUTO_TEST_CASE(the_memory_limit_bounds_the_regions) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 4 * kMiB);
  void* p1 = a->AllocateRaw(1, kMiB);
  void* p2 = a->AllocateRaw(1, kMiB);  // the 2 MiB region is full
  BOOST_TEST(a->RegionBytes() == 2 * kMiB);
  // The next region would be 4 MiB: the limit leaves 2.
  void* p3 = a->AllocateRaw(1, 1536 * kKiB);
  BOOST_TEST_REQUIRE(p3 != nullptr);
  BOOST_TEST(a->RegionBytes() == 4 * kMiB);
  BOOST_TEST(a->LargestFreeChunk() == 512 * kKiB);
  AF_CHECK_INVARIANTS(*a);

  BOOST_TEST(a->AllocateRaw(1, kMiB) == nullptr);
  const std::string detail = a->OutOfMemoryDetail(kMiB);
  BOOST_TEST_MESSAGE("out of memory: " << detail);
  BOOST_TEST(detail.find("allocator gpu_bfc") != std::string::npos, detail);
  BOOST_TEST(detail.find("3.5 MiB in use") != std::string::npos, detail);
  BOOST_TEST(detail.find("of a 4.0 MiB limit") != std::string::npos, detail);
  BOOST_TEST(detail.find("4.0 MiB held in 2 regions") != std::string::npos, detail);
  BOOST_TEST(detail.find("largest free chunk 512.0 KiB") != std::string::npos, detail);
  BOOST_TEST(detail.find("request alone") == std::string::npos, detail);
  BOOST_TEST(a->OutOfMemoryDetail(5 * kMiB).find("request alone exceeds the limit") !=
             std::string::npos);
  BOOST_TEST(a->AllocateRaw(1, 5 * kMiB) == nullptr);
  AF_CHECK_INVARIANTS(*a);

  // Freeing makes room again.
  a->DeallocateRaw(p3, 1536 * kKiB);
  void* p4 = a->AllocateRaw(1, kMiB);
  BOOST_TEST_REQUIRE(p4 != nullptr);
  BOOST_TEST(p4 == p3);
  for (void* p : {p1, p2, p4}) a->DeallocateRaw(p, 0);
  AF_CHECK_INVARIANTS(*a);
  BOOST_TEST(arena->live_regions.load() == 2);
}

BOOST_AUTO_TEST_CASE(unused_regions_are_given_back_before_failing) {
  for (bool gc : {true, false}) {
    BOOST_TEST_CONTEXT("garbage_collect_on_oom " << gc) {
      auto arena = std::make_shared<HostArena>();
      auto a = MakeBfc(arena, 4 * kMiB, 0, gc);
      void* p = a->AllocateRaw(1, 2 * kMiB);
      void* q = a->AllocateRaw(1, 2 * kMiB);
      a->DeallocateRaw(p, 0);
      a->DeallocateRaw(q, 0);
      BOOST_TEST(arena->live_regions.load() == 2);
      BOOST_TEST(a->GetStats().bytes_cached == static_cast<int64_t>(4 * kMiB));
      // Two free 2 MiB regions: 3 MiB fits only once both go back.
      void* r = a->AllocateRaw(1, 3 * kMiB);
      BOOST_TEST((r != nullptr) == gc);
      BOOST_TEST(arena->live_regions.load() == (gc ? 1 : 2));
      AF_CHECK_INVARIANTS(*a);
      if (r != nullptr) a->DeallocateRaw(r, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(fragmentation_measures_how_split_free_memory_is) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, kMiB, kMiB);
  BOOST_TEST(a->Fragmentation() == 0.0);  // one free chunk
  std::vector<void*> p;
  for (int i = 0; i < 16; ++i) p.push_back(a->AllocateRaw(1, 64 * kKiB));
  BOOST_TEST(a->LargestFreeChunk() == 0u);
  BOOST_TEST(a->Fragmentation() == 0.0);  // nothing free
  for (int i = 0; i < 16; i += 2) a->DeallocateRaw(p[i], 0);
  AF_CHECK_INVARIANTS(*a);
  // Eight separate 64 KiB holes: the largest is an eighth of what is free.
  BOOST_TEST(a->LargestFreeChunk() == 64 * kKiB);
  BOOST_TEST(a->Fragmentation() == 0.875, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(a->AllocateRaw(1, 128 * kKiB) == nullptr);  // half is free, none fits
  for (int i = 1; i < 16; i += 2) a->DeallocateRaw(p[i], 0);
  AF_CHECK_INVARIANTS(*a);
  BOOST_TEST(a->Fragmentation() == 0.0);
  BOOST_TEST(a->LargestFreeChunk() == a->RegionBytes());
}

BOOST_AUTO_TEST_CASE(statistics_per_allocation_site) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 16 * kMiB);
  // ScopedAllocationSite keeps a pointer to the name: it must outlive the
  // scope (a literal would make a temporary string that dies at once).
  const std::string matmul = "MatMul", conv = "Conv2D";
  void *m1, *m2, *c1;
  {
    ScopedAllocationSite site(matmul);
    m1 = a->AllocateRaw(64, 1000);
    m2 = a->AllocateRaw(64, 1000);
    {
      ScopedAllocationSite inner(conv);
      c1 = a->AllocateRaw(64, 5000);
    }
  }
  void* u = a->AllocateRaw(64, 10);
  auto sites = a->SiteStatistics();
  BOOST_TEST(sites.size() == 3u);
  BOOST_TEST(sites["MatMul"].num_allocs == 2);
  BOOST_TEST(sites["MatMul"].bytes_in_use == 2048);
  BOOST_TEST(sites["Conv2D"].num_allocs == 1);
  BOOST_TEST(sites["Conv2D"].bytes_in_use == 5120);
  BOOST_TEST(sites["(unknown)"].bytes_in_use == 256);
  // Frees are charged to the allocating site, whatever the site of the free.
  {
    ScopedAllocationSite site(conv);
    a->DeallocateRaw(m1, 1000);
  }
  sites = a->SiteStatistics();
  BOOST_TEST(sites["MatMul"].bytes_in_use == 1024);
  BOOST_TEST(sites["MatMul"].peak_bytes_in_use == 2048);
  BOOST_TEST(sites["Conv2D"].bytes_in_use == 5120);
  for (void* p : {m2, c1, u}) a->DeallocateRaw(p, 0);
  sites = a->SiteStatistics();
  for (const auto& [name, s] : sites) {
    BOOST_TEST_CONTEXT(name) { BOOST_TEST(s.bytes_in_use == 0); }
  }
  BOOST_TEST(sites["Conv2D"].peak_bytes_in_use == 5120);
  AF_CHECK_INVARIANTS(*a);
}

// Random sizes from 1 byte to 1 MiB, most of them small: a size class
// (power of two) uniformly, then a size within it.
size_t RandomSize(std::mt19937& rng) {
  const int bits = std::uniform_int_distribution<int>(0, 20)(rng);
  return std::uniform_int_distribution<size_t>(1, size_t{1} << bits)(rng);
}

// The pattern bytes of an allocation are all equal to its tag.
bool PatternIntact(const void* p, size_t bytes, unsigned char tag) {
  if (bytes == 0) return true;
  const auto* b = static_cast<const unsigned char*>(p);
  return b[0] == tag && std::memcmp(b, b + 1, bytes - 1) == 0;
}

BOOST_AUTO_TEST_CASE(randomized_operations_agree_with_a_model) {
  constexpr int kOps = 20000;
  constexpr size_t kLimit = 64 * kMiB;
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, kLimit);
  std::mt19937 rng(20240611);
  struct Live {
    size_t bytes;
    unsigned char tag;
  };
  std::map<char*, Live> live;  // the model, by address
  std::vector<char*> order;    // live addresses, for picking one at random
  size_t model_in_use = 0;
  int allocs = 0, frees = 0, ooms = 0;

  auto free_one = [&](size_t index) {
    char* p = order[index];
    order[index] = order.back();
    order.pop_back();
    auto it = live.find(p);
    BOOST_TEST_REQUIRE((it != live.end()));
    BOOST_TEST(PatternIntact(p, it->second.bytes, it->second.tag));
    model_in_use -= Rounded(it->second.bytes);
    a->DeallocateRaw(p, it->second.bytes);
    live.erase(it);
    ++frees;
  };

  const auto start = std::chrono::steady_clock::now();
  for (int op = 1; op <= kOps; ++op) {
    const bool alloc = order.empty() || std::bernoulli_distribution(0.6)(rng);
    if (alloc) {
      const size_t bytes = RandomSize(rng);
      const size_t alignment = size_t{1} << std::uniform_int_distribution<int>(0, 8)(rng);
      char* p = Addr(a->AllocateRaw(alignment, bytes));
      if (p == nullptr) {
        // Only when no free chunk fits and the limit leaves no room.
        ++ooms;
        const size_t room = (kLimit - a->RegionBytes()) / 256 * 256;
        BOOST_TEST(a->LargestFreeChunk() < Rounded(bytes));
        BOOST_TEST(room < Rounded(bytes));
        // Make room: free a quarter of what lives.
        for (size_t n = order.size() / 4 + 1; n > 0 && !order.empty(); --n) {
          free_one(std::uniform_int_distribution<size_t>(0, order.size() - 1)(rng));
        }
      } else {
        ++allocs;
        BOOST_TEST(reinterpret_cast<uintptr_t>(p) % alignment == 0u);
        // No overlap with the live neighbours (by whole chunks).
        auto next = live.lower_bound(p);
        if (next != live.end()) BOOST_TEST((p + Rounded(bytes) <= next->first));
        if (next != live.begin()) {
          auto prev = std::prev(next);
          BOOST_TEST((prev->first + Rounded(prev->second.bytes) <= p));
        }
        const auto tag = static_cast<unsigned char>(1 + op % 255);
        std::memset(p, tag, bytes);
        live.emplace(p, Live{bytes, tag});
        order.push_back(p);
        model_in_use += Rounded(bytes);
      }
    } else {
      free_one(std::uniform_int_distribution<size_t>(0, order.size() - 1)(rng));
    }
    BOOST_TEST_REQUIRE(a->GetStats().bytes_in_use == static_cast<int64_t>(model_in_use));
    BOOST_TEST_REQUIRE(a->RegionBytes() <= kLimit);
    if (op % 500 == 0) {
      std::string why;
      BOOST_TEST_REQUIRE(a->CheckInvariants(&why), "after op " << op << ": " << why);
    }
  }
  const AllocatorStats stats = a->GetStats();
  BOOST_TEST_MESSAGE("randomized: " << kOps << " operations, " << allocs << " allocations, "
                                    << frees << " frees, " << ooms << " out of memory, peak "
                                    << stats.peak_bytes_in_use << " bytes, "
                                    << arena->live_regions << " regions, fragmentation "
                                    << a->Fragmentation());
  BOOST_TEST(allocs > kOps / 2);
  BOOST_TEST(ooms > 0);  // the limit was reached
  BOOST_TEST(stats.num_allocs == allocs);

  while (!order.empty()) free_one(order.size() - 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST_MESSAGE("randomized: " << seconds << " s in all");
  BOOST_TEST(a->BytesInUse() == 0u);
  AF_CHECK_INVARIANTS(*a);
  // Everything merged back: one free chunk per region.
  BOOST_TEST(FreeChunksListed(*a) == arena->live_regions.load());
  BOOST_TEST(arena->live_bytes.load() == a->RegionBytes());
  BOOST_TEST(a->GetStats().bytes_cached == static_cast<int64_t>(a->RegionBytes()));
}

BOOST_AUTO_TEST_CASE(threads_allocate_and_free_concurrently) {
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 5000;
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, 64 * kMiB);
  std::atomic<int> corrupted{0}, failed{0};
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string site_name = "T" + std::to_string(t);
      ScopedAllocationSite site(site_name);
      std::mt19937 rng(1000 + t);
      std::vector<std::pair<char*, size_t>> mine;
      const auto tag = static_cast<unsigned char>(0x10 + t);
      for (int op = 0; op < kOpsPerThread; ++op) {
        if (mine.empty() || std::bernoulli_distribution(0.5)(rng)) {
          const size_t bytes = std::uniform_int_distribution<size_t>(1, 64 * kKiB)(rng);
          char* p = Addr(a->AllocateRaw(64, bytes));
          if (p == nullptr) {
            ++failed;
            continue;
          }
          std::memset(p, tag, bytes);
          mine.emplace_back(p, bytes);
        } else {
          const size_t i = std::uniform_int_distribution<size_t>(0, mine.size() - 1)(rng);
          auto [p, bytes] = mine[i];
          if (!PatternIntact(p, bytes, tag)) ++corrupted;
          a->DeallocateRaw(p, bytes);
          mine[i] = mine.back();
          mine.pop_back();
        }
      }
      for (auto [p, bytes] : mine) {
        if (!PatternIntact(p, bytes, tag)) ++corrupted;
        a->DeallocateRaw(p, bytes);
      }
    });
  }
  for (auto& th : threads) th.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST_MESSAGE("threads: " << kThreads << " x " << kOpsPerThread << " operations in "
                                 << seconds << " s, " << a->GetStats().num_allocs
                                 << " allocations");
  BOOST_TEST(corrupted.load() == 0);
  BOOST_TEST(failed.load() == 0);
  BOOST_TEST(a->BytesInUse() == 0u);
  AF_CHECK_INVARIANTS(*a);
  const auto sites = a->SiteStatistics();
  BOOST_TEST(sites.size() == static_cast<size_t>(kThreads));
  int64_t allocs = 0;
  for (const auto& [name, s] : sites) {
    BOOST_TEST(s.bytes_in_use == 0);
    allocs += s.num_allocs;
  }
  BOOST_TEST(allocs == a->GetStats().num_allocs);
}

BOOST_AUTO_TEST_CASE(the_destructor_gives_every_region_back) {
  auto arena = std::make_shared<HostArena>();
  {
    auto a = MakeBfc(arena, 0);
    for (size_t bytes : {kMiB, 3 * kMiB, 5 * kMiB, 9 * kMiB}) {
      BOOST_TEST_REQUIRE(a->AllocateRaw(1, bytes) != nullptr);  // left in use
    }
    BOOST_TEST(arena->live_regions.load() >= 3);
    BOOST_TEST(arena->live_bytes.load() == a->RegionBytes());
  }
  BOOST_TEST(arena->live_regions.load() == 0);
  BOOST_TEST(arena->live_bytes.load() == 0u);
}

BOOST_AUTO_TEST_CASE(debug_string_lists_regions_bins_and_chunks) {
  auto arena = std::make_shared<HostArena>();
  auto a = MakeBfc(arena, kMiB, kMiB);
  void* p = a->AllocateRaw(1, 1000);
  const std::string s = a->DebugString();
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.find("gpu_bfc") != std::string::npos);
  BOOST_TEST(s.find("region 0") != std::string::npos);
  BOOST_TEST(s.find("+0 1024 in use") != std::string::npos, s);
  BOOST_TEST(s.find("+1024 1047552 free") != std::string::npos, s);
  BOOST_TEST(s.find("bin 11 [524288, 1048576): 1 free chunks") != std::string::npos, s);
  a->DeallocateRaw(p, 1000);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::gpu
