#include "kernels/nn/onednn_util.h"

#include <algorithm>
#include <cstdlib>

namespace af::onednn {

namespace {
constexpr size_t kAlign = 64;
size_t RoundUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

dnnl::engine& CpuEngine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);  // never destroyed:
  return *engine;  // streams on exiting threads may still refer to it
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(CpuEngine());
  return stream;
}

ThreadScratch& ThreadScratch::Get() {
  thread_local ThreadScratch scratch;
  return scratch;
}

ThreadScratch::~ThreadScratch() { std::free(data_); }

bool ThreadScratch::Reserve(std::initializer_list<size_t> sizes) {
  if (sizes.size() > kMaxRegions) return false;
  size_t total = 0;
  for (size_t s : sizes) total += RoundUp(s);
  if (total > capacity_) {
    // Grow geometrically so a few shapes settle on one buffer.
    const size_t want = RoundUp(std::max(total, capacity_ + capacity_ / 2));
    std::free(data_);
    capacity_ = 0;
    data_ = static_cast<char*>(std::aligned_alloc(kAlign, want));
    if (!data_) return false;
    capacity_ = want;
  }
  size_t offset = 0;
  int i = 0;
  for (size_t s : sizes) {
    regions_[i++] = s == 0 ? nullptr : data_ + offset;
    offset += RoundUp(s);
  }
  for (; i < kMaxRegions; ++i) regions_[i] = nullptr;
  return true;
}

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

}  // namespace af::onednn
