// What this process's data plane moved, for tests and for a server's
// farewell line: whether a tensor crossed as a frame or fell back to the
// chunk path is otherwise invisible. No CAF here.
#pragma once

#include <atomic>
#include <cstdint>

namespace af::net {

struct TransferCounters {
  std::atomic<uint64_t> tensors_sent{0};
  std::atomic<uint64_t> bytes_sent{0};
  std::atomic<uint64_t> tensors_received{0};
  std::atomic<uint64_t> bytes_received{0};
  // Transfers handed back to the caller's other path (no connection).
  std::atomic<uint64_t> fallbacks{0};

  static TransferCounters& Global() {
    static TransferCounters* const counters = new TransferCounters();
    return *counters;
  }
};

}  // namespace af::net
