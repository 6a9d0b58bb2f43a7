// Helpers shared by the math kernel tests: NumPy broadcasting done the slow
// way, error expectations, and devices with fake intra-op pools.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {

// Output shape of broadcasting any number of shapes.
inline TensorShape BroadcastReferenceShape(std::initializer_list<TensorShape> shapes) {
  int rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.dims());
  std::vector<int64_t> dims(rank, 1);
  for (const auto& s : shapes)
    for (int d = 0; d < s.dims(); ++d) {
      const int64_t size = s.dim_size(d);
      int64_t& out = dims[rank - s.dims() + d];
      if (size != 1) out = size;
    }
  return TensorShape(dims);
}

// Flat index into `src` of output element `flat` when `src` broadcasts to
// `out`.
inline int64_t BroadcastSourceIndex(const TensorShape& src, const TensorShape& out, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (int d = out.dims() - 1; d >= 0; --d) {
    const int64_t i = flat % out.dim_size(d);
    flat /= out.dim_size(d);
    const int sd = d - (out.dims() - src.dims());
    if (sd < 0) continue;
    if (src.dim_size(sd) != 1) index += i * stride;
    stride *= src.dim_size(sd);
  }
  return index;
}

// Checks that `result` failed with `code` and a message naming the node
// ("node 'test_node'"), the op and every one of `parts`.
template <typename R>
void ExpectError(const R& result, Code code, const std::string& op,
                 std::initializer_list<std::string> parts, const std::string& node = "test_node") {
  BOOST_REQUIRE_MESSAGE(!result.ok(), "expected an error from " + op);
  BOOST_CHECK_EQUAL(result.status().code(), code);
  const std::string& msg = result.status().message();
  BOOST_CHECK_MESSAGE(msg.find("node '" + node + "'") != std::string::npos, msg);
  BOOST_CHECK_MESSAGE(msg.find("'" + op + "'") != std::string::npos, msg);
  for (const auto& part : parts) BOOST_CHECK_MESSAGE(msg.find(part) != std::string::npos, msg);
}

// Bitwise equality of two tensors (same dtype, shape and bytes).
inline bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.tensor_data() == b.tensor_data();
}

// Runs each scheduled task on a thread of its own, all joined when the pool
// goes away; reports `threads` threads.
class ThreadPerTaskPool : public ThreadPoolInterface {
 public:
  explicit ThreadPerTaskPool(int threads) : threads_(threads) {}
  ~ThreadPerTaskPool() override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& t : running_) t.join();
  }
  void Schedule(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++scheduled_;
    running_.emplace_back(std::move(fn));
  }
  int NumThreads() const override { return threads_; }
  void ParallelFor(int64_t total, int64_t,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    fn(0, total);
  }
  int scheduled() {
    std::lock_guard<std::mutex> lock(mu_);
    return scheduled_;
  }

 private:
  const int threads_;
  std::mutex mu_;
  std::vector<std::thread> running_;
  int scheduled_ = 0;
};

// A pool whose threads are all busy elsewhere: scheduled tasks only run
// when the pool is destroyed. Kernels must still finish (on the caller).
class StalledPool : public ThreadPoolInterface {
 public:
  ~StalledPool() override {
    for (auto& fn : pending_) fn();
  }
  void Schedule(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(fn));
  }
  int NumThreads() const override { return 4; }
  void ParallelFor(int64_t total, int64_t,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    fn(0, total);
  }

 private:
  std::mutex mu_;
  std::deque<std::function<void()>> pending_;
};

// The test CPU device plus an intra-op pool.
class PooledCpuDevice : public TestCpuDevice {
 public:
  explicit PooledCpuDevice(ThreadPoolInterface* pool) : pool_(pool) {}
  ThreadPoolInterface* intra_op_pool() override { return pool_; }

 private:
  ThreadPoolInterface* pool_;
};

}  // namespace af::test
