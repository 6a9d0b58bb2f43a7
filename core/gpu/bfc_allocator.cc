#include "core/gpu/bfc_allocator.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <utility>

#include "core/asan_poison.h"
#include "core/logging.h"

namespace af::gpu {

namespace {

constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();
constexpr std::string_view kUnknownSite = "(unknown)";

std::string HumanBytes(size_t bytes) {
  char text[48];
  const double b = static_cast<double>(bytes);
  if (bytes >= (size_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", b / (size_t{1} << 30));
  } else if (bytes >= (size_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", b / (size_t{1} << 20));
  } else if (bytes >= 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", b / 1024);
  } else {
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  }
  return text;
}

}  // namespace

bool BfcAllocator::BySizeThenAddress::operator()(const Chunk* a, const Chunk* b) const {
  if (a->size != b->size) return a->size < b->size;
  return std::less<const char*>()(a->ptr, b->ptr);
}

size_t BfcAllocator::RoundUp(size_t bytes) {
  if (bytes < kMinChunkBytes) return kMinChunkBytes;
  return (bytes + kMinChunkBytes - 1) & ~(kMinChunkBytes - 1);
}

int BfcAllocator::BinIndex(size_t size) {
  const int i = std::bit_width(size / kMinChunkBytes) - 1;
  return std::clamp(i, 0, kNumBins - 1);
}

BfcAllocator::BfcAllocator(std::unique_ptr<SubAllocator> sub, BfcOptions options,
                           std::string name)
    : sub_(std::move(sub)),
      options_(options),
      limit_(options.memory_limit == 0 ? kNoLimit : options.memory_limit),
      name_(std::move(name)) {
  const size_t initial = options_.initial_region_bytes;
  next_region_bytes_ =
      initial > 0 && initial <= kNoLimit - kMinChunkBytes ? RoundUp(initial) : kMinRegionBytes;
  if (initial > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t available = limit_ - limit_ % kMinChunkBytes;
    // All or nothing here; a later Extend may settle for less.
    const size_t first = std::min(available, next_region_bytes_);
    if (first > 0) Extend(first);
  }
}

BfcAllocator::~BfcAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  const bool host = sub_->IsHostAccessible();
  for (auto& region : regions_) {
    for (Chunk* c = region->first; c != nullptr;) {
      Chunk* next = c->next;
      delete c;
      c = next;
    }
    if (host) UnpoisonMemory(region->base, region->bytes);
    sub_->Free(region->base, region->bytes);
  }
  regions_.clear();
}

std::string BfcAllocator::Name() const { return name_; }

bool BfcAllocator::IsHostAccessible() const { return sub_->IsHostAccessible(); }

void BfcAllocator::InsertFree(Chunk* c) { bins_[BinIndex(c->size)].insert(c); }

void BfcAllocator::RemoveFree(Chunk* c) { bins_[BinIndex(c->size)].erase(c); }

BfcAllocator::Chunk* BfcAllocator::FindFreeChunk(size_t size) {
  Chunk probe;
  probe.size = size;
  probe.ptr = nullptr;  // before every chunk of the same size
  for (int b = BinIndex(size); b < kNumBins; ++b) {
    Bin& bin = bins_[b];
    // In the bins above the first, every chunk fits: take the smallest.
    auto it = bin.lower_bound(&probe);
    if (it == bin.end()) continue;
    Chunk* c = *it;
    bin.erase(it);
    return c;
  }
  return nullptr;
}

bool BfcAllocator::Extend(size_t size) {
  size_t available = limit_ > region_bytes_ ? limit_ - region_bytes_ : 0;
  available -= available % kMinChunkBytes;
  if (size > available) return false;
  size_t want = std::min(available, std::max(size, next_region_bytes_));
  void* base = nullptr;
  for (;;) {
    base = sub_->Alloc(want);
    if (base != nullptr || want <= size) break;
    // The SubAllocator could not give that much: try half, down to `size`.
    want = std::max(size, RoundUp(want / 2));
  }
  if (base == nullptr) return false;

  auto region = std::make_unique<Region>();
  region->base = base;
  region->bytes = want;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(base);
  const uintptr_t start = (addr + kMinChunkBytes - 1) & ~uintptr_t{kMinChunkBytes - 1};
  const size_t head = static_cast<size_t>(start - addr);
  region->start = static_cast<char*>(base) + head;
  region->usable = want > head ? (want - head) & ~(kMinChunkBytes - 1) : 0;
  if (region->usable < size) {
    // A misaligned region lost too much of its head to serve the request.
    sub_->Free(base, want);
    return false;
  }
  auto* c = new Chunk;
  c->ptr = region->start;
  c->size = region->usable;
  c->region = region.get();
  region->first = c;
  if (sub_->IsHostAccessible()) PoisonMemory(c->ptr, c->size);
  region_bytes_ += region->bytes;
  usable_bytes_ += region->usable;
  next_region_bytes_ = want <= kNoLimit / 2 ? 2 * want : want;
  regions_.push_back(std::move(region));
  InsertFree(c);
  return true;
}

int BfcAllocator::FreeUnusedRegions() {
  const bool host = sub_->IsHostAccessible();
  int freed = 0;
  for (auto it = regions_.begin(); it != regions_.end();) {
    Region* r = it->get();
    Chunk* c = r->first;
    if (c->in_use || c->next != nullptr) {
      ++it;
      continue;
    }
    RemoveFree(c);
    delete c;
    region_bytes_ -= r->bytes;
    usable_bytes_ -= r->usable;
    if (host) UnpoisonMemory(r->base, r->bytes);
    sub_->Free(r->base, r->bytes);
    it = regions_.erase(it);
    ++freed;
  }
  return freed;
}

void* BfcAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  // Chunks are 256-byte aligned: that serves every power of two up to 256.
  if (alignment > kMinChunkBytes || (alignment & (alignment - 1)) != 0) return nullptr;
  if (bytes > kNoLimit - kMinChunkBytes) return nullptr;
  const size_t size = RoundUp(bytes);

  std::lock_guard<std::mutex> lock(mu_);
  Chunk* c = FindFreeChunk(size);
  if (c == nullptr && Extend(size)) c = FindFreeChunk(size);
  if (c == nullptr && options_.garbage_collect_on_oom && FreeUnusedRegions() > 0 &&
      Extend(size)) {
    c = FindFreeChunk(size);
  }
  if (c == nullptr) return nullptr;

  // Best fit: split off what the request leaves (always a whole number of
  // minimal chunks). Its right neighbour is in use or absent, as c was free.
  if (c->size - size >= kMinChunkBytes) {
    auto* rest = new Chunk;
    rest->ptr = c->ptr + size;
    rest->size = c->size - size;
    rest->region = c->region;
    rest->prev = c;
    rest->next = c->next;
    if (c->next != nullptr) c->next->prev = rest;
    c->next = rest;
    c->size = size;
    InsertFree(rest);
  }
  c->in_use = true;
  in_use_.emplace(c->ptr, c);

  bytes_in_use_ += c->size;
  const auto in_use = static_cast<int64_t>(bytes_in_use_);
  const auto chunk = static_cast<int64_t>(c->size);
  ++stats_.num_allocs;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, in_use);
  stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, chunk);

  const std::string& site_name = af::CurrentAllocationSite();
  const std::string_view key = site_name.empty() ? kUnknownSite : std::string_view(site_name);
  auto site = sites_.find(key);
  if (site == sites_.end()) site = sites_.emplace(std::string(key), AllocationSiteStats{}).first;
  AllocationSiteStats& s = site->second;
  ++s.num_allocs;
  s.bytes_in_use += chunk;
  s.peak_bytes_in_use = std::max(s.peak_bytes_in_use, s.bytes_in_use);
  c->site = &s;

  // The rounding tail stays poisoned: an overrun of the request is caught.
  if (sub_->IsHostAccessible()) UnpoisonMemory(c->ptr, bytes);
  return c->ptr;
}

void BfcAllocator::DeallocateRaw(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) {
    AF_LOG(FATAL) << "allocator " << name_ << ": freeing " << ptr << " (" << bytes
                  << " bytes), which it does not hold";
  }
  Chunk* c = it->second;
  in_use_.erase(it);
  bytes_in_use_ -= c->size;
  c->site->bytes_in_use -= static_cast<int64_t>(c->size);
  c->site = nullptr;
  c->in_use = false;
  if (sub_->IsHostAccessible()) PoisonMemory(c->ptr, c->size);

  // Coalesce: absorb a free right neighbour, then merge into a free left one.
  if (Chunk* n = c->next; n != nullptr && !n->in_use) {
    RemoveFree(n);
    c->size += n->size;
    c->next = n->next;
    if (c->next != nullptr) c->next->prev = c;
    delete n;
  }
  if (Chunk* p = c->prev; p != nullptr && !p->in_use) {
    RemoveFree(p);
    p->size += c->size;
    p->next = c->next;
    if (p->next != nullptr) p->next->prev = p;
    delete c;
    c = p;
  }
  InsertFree(c);
}

af::AllocatorStats BfcAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  af::AllocatorStats s = stats_;
  s.bytes_in_use = static_cast<int64_t>(bytes_in_use_);
  s.bytes_cached = static_cast<int64_t>(region_bytes_ - bytes_in_use_);
  return s;
}

size_t BfcAllocator::LargestFreeChunkLocked() const {
  for (int b = kNumBins - 1; b >= 0; --b) {
    if (!bins_[b].empty()) return (*bins_[b].rbegin())->size;
  }
  return 0;
}

size_t BfcAllocator::FreeBytesLocked() const { return usable_bytes_ - bytes_in_use_; }

double BfcAllocator::FragmentationLocked() const {
  const size_t free = FreeBytesLocked();
  if (free == 0) return 0.0;
  return 1.0 - static_cast<double>(LargestFreeChunkLocked()) / static_cast<double>(free);
}

size_t BfcAllocator::LargestFreeChunk() const {
  std::lock_guard<std::mutex> lock(mu_);
  return LargestFreeChunkLocked();
}

size_t BfcAllocator::BytesInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_in_use_;
}

size_t BfcAllocator::RegionBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return region_bytes_;
}

double BfcAllocator::Fragmentation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return FragmentationLocked();
}

std::map<std::string, AllocationSiteStats> BfcAllocator::SiteStatistics() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {sites_.begin(), sites_.end()};
}

std::string BfcAllocator::OutOfMemoryDetail(size_t bytes) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out = "; allocator " + name_ + ": " + HumanBytes(bytes_in_use_) + " in use";
  if (limit_ == kNoLimit) {
    out += " (no limit)";
  } else {
    out += " of a " + HumanBytes(limit_) + " limit";
  }
  out += ", " + HumanBytes(region_bytes_) + " held in " + std::to_string(regions_.size()) +
         (regions_.size() == 1 ? " region" : " regions");
  out += ", largest free chunk " + HumanBytes(LargestFreeChunkLocked());
  char frag[32];
  std::snprintf(frag, sizeof frag, "%.2f", FragmentationLocked());
  out += ", fragmentation ";
  out += frag;
  if (limit_ != kNoLimit && bytes <= kNoLimit - kMinChunkBytes && RoundUp(bytes) > limit_) {
    out += " (the request alone exceeds the limit)";
  }
  return out;
}

std::string BfcAllocator::DebugString() const {
  constexpr int kMaxChunksPerRegion = 256;
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream os;
  os << "BfcAllocator " << name_ << ": limit "
     << (limit_ == kNoLimit ? std::string("none") : std::to_string(limit_)) << ", "
     << regions_.size() << " regions of " << region_bytes_ << " bytes, " << bytes_in_use_
     << " in use in " << in_use_.size() << " chunks, largest free chunk "
     << LargestFreeChunkLocked() << ", fragmentation " << FragmentationLocked()
     << ", next region " << next_region_bytes_ << "\n";
  for (size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = *regions_[i];
    os << " region " << i << " at " << static_cast<const void*>(r.start) << ", " << r.usable
       << " usable of " << r.bytes << " bytes:\n";
    int n = 0;
    for (const Chunk* c = r.first; c != nullptr; c = c->next, ++n) {
      if (n == kMaxChunksPerRegion) {
        int rest = 0;
        for (; c != nullptr; c = c->next) ++rest;
        os << "  ... " << rest << " more chunks\n";
        break;
      }
      os << "  +" << (c->ptr - r.start) << " " << c->size << (c->in_use ? " in use" : " free")
         << "\n";
    }
  }
  for (int b = 0; b < kNumBins; ++b) {
    if (bins_[b].empty()) continue;
    size_t total = 0;
    for (const Chunk* c : bins_[b]) total += c->size;
    os << " bin " << b << " [" << (kMinChunkBytes << b) << ", ";
    if (b == kNumBins - 1) {
      os << "...)";
    } else {
      os << (kMinChunkBytes << (b + 1)) << ")";
    }
    os << ": " << bins_[b].size() << " free chunks, " << total << " bytes\n";
  }
  return os.str();
}

bool BfcAllocator::CheckInvariants(std::string* why) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto fail = [why](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  auto at = [](const Region& r, const Chunk* c) {
    return " (chunk at +" + std::to_string(c->ptr - r.start) + ", " + std::to_string(c->size) +
           " bytes)";
  };
  size_t region_bytes = 0, usable_bytes = 0, in_use_bytes = 0;
  size_t free_chunks = 0, in_use_chunks = 0;
  for (size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = *regions_[i];
    const std::string where = "region " + std::to_string(i);
    region_bytes += r.bytes;
    usable_bytes += r.usable;
    if (r.first == nullptr) return fail(where + " has no chunks");
    if (r.first->prev != nullptr) return fail(where + ": its first chunk has a predecessor");
    const char* expect = r.start;
    const Chunk* prev = nullptr;
    for (const Chunk* c = r.first; c != nullptr; prev = c, c = c->next) {
      if (c->region != &r) return fail(where + ": a chunk names another region" + at(r, c));
      if (c->prev != prev) return fail(where + ": broken prev link" + at(r, c));
      if (c->ptr != expect) return fail(where + ": gap or overlap between chunks" + at(r, c));
      if (c->size == 0 || c->size % kMinChunkBytes != 0) {
        return fail(where + ": chunk size not a positive multiple of 256" + at(r, c));
      }
      if (reinterpret_cast<uintptr_t>(c->ptr) % kMinChunkBytes != 0) {
        return fail(where + ": chunk not 256-byte aligned" + at(r, c));
      }
      if (static_cast<size_t>(c->ptr - r.start) + c->size > r.usable) {
        return fail(where + ": chunk runs past the region" + at(r, c));
      }
      expect = c->ptr + c->size;
      const auto found = in_use_.find(c->ptr);
      if (c->in_use) {
        ++in_use_chunks;
        in_use_bytes += c->size;
        if (found == in_use_.end() || found->second != c) {
          return fail(where + ": in-use chunk missing from the pointer map" + at(r, c));
        }
        if (c->site == nullptr) return fail(where + ": in-use chunk without a site" + at(r, c));
      } else {
        ++free_chunks;
        if (prev != nullptr && !prev->in_use) {
          return fail(where + ": two adjacent free chunks" + at(r, c));
        }
        if (found != in_use_.end()) {
          return fail(where + ": free chunk in the pointer map" + at(r, c));
        }
        if (bins_[BinIndex(c->size)].count(const_cast<Chunk*>(c)) == 0) {
          return fail(where + ": free chunk missing from its bin" + at(r, c));
        }
      }
    }
    if (expect != r.start + r.usable) {
      return fail(where + ": chunks cover " + std::to_string(expect - r.start) + " of " +
                  std::to_string(r.usable) + " usable bytes");
    }
    if (r.usable > r.bytes) return fail(where + ": more usable bytes than taken");
  }
  size_t binned = 0;
  for (int b = 0; b < kNumBins; ++b) {
    for (const Chunk* c : bins_[b]) {
      ++binned;
      if (c->in_use) return fail("bin " + std::to_string(b) + " holds an in-use chunk");
      if (BinIndex(c->size) != b) {
        return fail("bin " + std::to_string(b) + " holds a chunk of " + std::to_string(c->size) +
                    " bytes");
      }
    }
  }
  if (binned != free_chunks) {
    return fail("bins hold " + std::to_string(binned) + " chunks, regions " +
                std::to_string(free_chunks) + " free ones");
  }
  if (in_use_.size() != in_use_chunks) {
    return fail("pointer map holds " + std::to_string(in_use_.size()) + " chunks, regions " +
                std::to_string(in_use_chunks) + " in-use ones");
  }
  if (in_use_bytes != bytes_in_use_) {
    return fail("bytes in use counted " + std::to_string(bytes_in_use_) + ", chunks add up to " +
                std::to_string(in_use_bytes));
  }
  if (region_bytes != region_bytes_ || usable_bytes != usable_bytes_) {
    return fail("region byte counters do not add up");
  }
  if (region_bytes_ > limit_) return fail("regions exceed the memory limit");
  if (static_cast<int64_t>(bytes_in_use_) > stats_.peak_bytes_in_use) {
    return fail("bytes in use above the peak");
  }
  int64_t site_bytes = 0;
  for (const auto& [site, s] : sites_) {
    if (s.bytes_in_use < 0 || s.bytes_in_use > s.peak_bytes_in_use) {
      return fail("site " + site + ": bytes in use out of range");
    }
    site_bytes += s.bytes_in_use;
  }
  if (site_bytes != static_cast<int64_t>(bytes_in_use_)) {
    return fail("site bytes in use add up to " + std::to_string(site_bytes) + ", not " +
                std::to_string(bytes_in_use_));
  }
  return true;
}

}  // namespace af::gpu
