#include "actors/completion.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define AF_CPU_RELAX() _mm_pause()
#else
#define AF_CPU_RELAX() std::atomic_signal_fence(std::memory_order_seq_cst)
#endif

namespace af {
namespace {

// How long a waiter spins before it sleeps: about one cached step.
// Spinning threads beyond the cores would take them from the actors that
// are about to answer, so at most this many waiters spin at once.
int MaxSpinners() {
  static const int n = [] {
    unsigned hw = std::thread::hardware_concurrency();
    return hw <= 2 ? 1 : static_cast<int>(hw / 2);
  }();
  return n;
}
std::atomic<int> g_spinners{0};

long FutexWait(std::atomic<uint32_t>* word, uint32_t expected, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected,
                 timeout, nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

}  // namespace

void Completion::Notify() {
  state_.store(1, std::memory_order_seq_cst);
  // Pairs with the waiter's increment of sleepers_ before its re-check of
  // state_: either the waiter sees 1 or we see the sleeper.
  if (sleepers_.load(std::memory_order_seq_cst) != 0) FutexWakeAll(&state_);
}

bool Completion::WaitUntil(Clock::time_point deadline, std::chrono::microseconds spin) {
  if (IsDone()) return true;
  if (g_spinners.fetch_add(1, std::memory_order_relaxed) < MaxSpinners()) {
    const auto spin_end = Clock::now() + spin;
    for (int i = 1;; ++i) {
      if (IsDone()) break;
      AF_CPU_RELAX();
      if ((i & 63) == 0 && Clock::now() >= spin_end) break;
    }
  }
  g_spinners.fetch_sub(1, std::memory_order_relaxed);
  while (!IsDone()) {
    const auto now = Clock::now();
    if (now >= deadline) return IsDone();
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now);
    timespec ts;
    ts.tv_sec = static_cast<time_t>(left.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(left.count() % 1000000000);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    if (state_.load(std::memory_order_seq_cst) == 0) FutexWait(&state_, 0, &ts);
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }
  return true;
}

}  // namespace af
