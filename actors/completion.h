// Completion: a one-shot signal a plain (non-actor) thread waits on while an
// actor does the work. The waiter spins briefly, because a cached step
// usually answers within microseconds, then sleeps on a futex until the
// deadline. Notify never blocks, so an actor can call it from its handler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace af {

class Completion {
 public:
  using Clock = std::chrono::steady_clock;

  // Marks the completion done and wakes the waiter. Call once.
  void Notify();
  // True once Notify ran; false if `deadline` passed first. Spins for
  // `spin` first (when few threads spin already), then sleeps.
  bool WaitUntil(Clock::time_point deadline,
                 std::chrono::microseconds spin = std::chrono::microseconds(50));
  bool IsDone() const { return state_.load(std::memory_order_acquire) != 0; }

 private:
  std::atomic<uint32_t> state_{0};    // 0 pending, 1 done (the futex word)
  std::atomic<uint32_t> sleepers_{0};  // waiters inside futex_wait
};

}  // namespace af
