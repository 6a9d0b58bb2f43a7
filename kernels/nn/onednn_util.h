// What every oneDNN-backed kernel shares: one CPU engine per process, one
// stream per thread, and a per-thread scratch arena for the primitives'
// scratchpads and reordered weights.
//
// Primitives are created with scratchpad_mode::user: in library mode this
// oneDNN build keeps a scratchpad inside each primitive, so one cached
// primitive could not run from two executor threads at once. With the
// scratch coming from the calling thread's arena, a cached primitive is safe
// to execute concurrently and steady-state steps allocate nothing (the arena
// only grows).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "core/status.h"

namespace af::onednn {

dnnl::engine& CpuEngine();
dnnl::stream& ThreadStream();

// Per-thread memory carved into 64-byte aligned regions. Valid until the
// next Reserve() on the same thread; one kernel call reserves once.
class ThreadScratch {
 public:
  // Makes room for regions of the given sizes (at most kMaxRegions);
  // Region(i) then points at region i (nullptr for size 0). False when the
  // memory cannot be had.
  static constexpr int kMaxRegions = 4;
  static ThreadScratch& Get();
  [[nodiscard]] bool Reserve(std::initializer_list<size_t> sizes);
  void* Region(int i) const { return regions_[i]; }

 private:
  ThreadScratch() = default;
  ~ThreadScratch();
  char* data_ = nullptr;
  size_t capacity_ = 0;
  void* regions_[kMaxRegions] = {};
};

// Attributes every primitive here is created with (user scratchpad).
dnnl::primitive_attr UserScratchpadAttr();

// Runs `fn` (which creates or runs oneDNN objects) turning dnnl::error into
// an INTERNAL status that names `what`.
template <typename Fn>
Status Guard(const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    return errors::Internal("oneDNN ", what, " failed: ", e.what(), " (status ",
                            static_cast<int>(e.status), ")");
  }
  return Status::OK();
}

}  // namespace af::onednn
