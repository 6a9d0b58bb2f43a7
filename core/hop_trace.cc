#include "core/hop_trace.h"

#include <time.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace af {
namespace {

// Enough for tens of thousands of steps; later marks are dropped.
constexpr size_t kCapacity = size_t{1} << 20;

struct Buffer {
  std::string path;
  std::unique_ptr<HopMark[]> marks{new HopMark[kCapacity]};
  std::atomic<size_t> next{0};
};

Buffer* TheBuffer() {
  static Buffer* const buffer = []() -> Buffer* {
    const char* path = std::getenv("ACTORFLOW_HOP_TRACE");
    if (path == nullptr || *path == '\0') return nullptr;
    auto* b = new Buffer();
    b->path = path;
    // "-": kept in memory only (a benchmark reading its own marks).
    if (b->path != "-") std::atexit([] { HopTrace::Dump(TheBuffer()->path); });
    return b;
  }();
  return buffer;
}

const bool g_enabled = TheBuffer() != nullptr;

}  // namespace

const char* HopName(Hop hop) {
  switch (hop) {
    case Hop::kRunStart:
      return "run_start";
    case Hop::kRequestWritten:
      return "request_written";
    case Hop::kRequestRead:
      return "request_read";
    case Hop::kPartitionsStarted:
      return "partitions_started";
    case Hop::kTensorWritten:
      return "tensor_written";
    case Hop::kTensorRead:
      return "tensor_read";
    case Hop::kReplyWritten:
      return "reply_written";
    case Hop::kReplyRead:
      return "reply_read";
    case Hop::kRunEnd:
      return "run_end";
    case Hop::kNumHops:
      break;
  }
  return "?";
}

bool HopTrace::enabled() { return g_enabled; }

void HopTrace::Mark(int64_t step_id, Hop hop) {
  if (!g_enabled) return;
  Buffer* b = TheBuffer();
  const size_t slot = b->next.fetch_add(1, std::memory_order_relaxed);
  if (slot >= kCapacity) return;
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  b->marks[slot] = HopMark{
      step_id, static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec),
      hop};
}

std::vector<HopMark> HopTrace::Marks() {
  std::vector<HopMark> out;
  Buffer* b = TheBuffer();
  if (b == nullptr) return out;
  const size_t n = std::min(b->next.load(), kCapacity);
  out.assign(b->marks.get(), b->marks.get() + n);
  return out;
}

bool HopTrace::Dump(const std::string& path) {
  std::ofstream file(path);
  for (const HopMark& m : Marks()) {
    file << m.step_id << ' ' << static_cast<int>(m.hop) << ' ' << m.nanos << '\n';
  }
  return static_cast<bool>(file);
}

bool HopTrace::Load(const std::string& path, std::vector<HopMark>* out) {
  std::ifstream file(path);
  if (!file) return false;
  int64_t step_id = 0;
  int hop = 0;
  uint64_t nanos = 0;
  while (file >> step_id >> hop >> nanos) {
    if (hop < 0 || hop >= static_cast<int>(Hop::kNumHops)) return false;
    out->push_back(HopMark{step_id, nanos, static_cast<Hop>(hop)});
  }
  return true;
}

}  // namespace af
