#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include <unsupported/Eigen/CXX11/ThreadPool>

namespace af {

struct ThreadPool::Impl {
  explicit Impl(int n) : pool(n) {}
  Eigen::ThreadPool pool;
};

ThreadPool::ThreadPool(std::string name, int num_threads)
    : impl_(std::make_unique<Impl>(std::max(1, num_threads))) {
  (void)name;  // Eigen's pool does not name its threads
}

ThreadPool::~ThreadPool() {
  // The last owner of a device can go away on one of the device's own
  // threads (a step's completion holding the final reference). Joining
  // from inside the pool would deadlock, so hand the join to a helper.
  if (impl_->pool.CurrentThreadId() >= 0) {
    std::thread([impl = impl_.release()] { delete impl; }).detach();
  }
}

void ThreadPool::Schedule(std::function<void()> fn) { impl_->pool.Schedule(std::move(fn)); }

int ThreadPool::NumThreads() const { return impl_->pool.NumThreads(); }

int ThreadPool::CurrentThreadId() const { return impl_->pool.CurrentThreadId(); }

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  // Below ~100k cycles of work a hand-off costs more than it saves.
  constexpr int64_t kMinCyclesPerShard = 100000;
  const int64_t max_shards = static_cast<int64_t>(NumThreads()) + 1;
  int64_t shards = std::min<int64_t>(
      max_shards, std::max<int64_t>(1, total * std::max<int64_t>(cost_per_unit, 1) /
                                           kMinCyclesPerShard));
  shards = std::min(shards, total);
  if (shards <= 1) {
    fn(0, total);
    return;
  }
  const int64_t block = (total + shards - 1) / shards;
  Eigen::Barrier barrier(static_cast<unsigned>(shards - 1));
  for (int64_t s = 1; s < shards; ++s) {
    const int64_t begin = s * block;
    const int64_t end = std::min(total, begin + block);
    impl_->pool.Schedule([&fn, &barrier, begin, end] {
      if (begin < end) fn(begin, end);
      barrier.Notify();
    });
  }
  fn(0, std::min(total, block));  // the caller works too
  barrier.Wait();
}

}  // namespace af
