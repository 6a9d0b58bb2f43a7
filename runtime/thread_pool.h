// ThreadPool: a device's worker threads, built on Eigen's non-blocking
// work-stealing pool (spins briefly before sleeping, which keeps hand-offs
// between executor threads cheap).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/device_base.h"

namespace af {

class ThreadPool final : public ThreadPoolInterface {
 public:
  ThreadPool(std::string name, int num_threads);
  ~ThreadPool() override;  // waits for scheduled work to finish

  void Schedule(std::function<void()> fn) override;
  int NumThreads() const override;
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) override;
  // Index of the calling thread in this pool, or -1.
  int CurrentThreadId() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af
