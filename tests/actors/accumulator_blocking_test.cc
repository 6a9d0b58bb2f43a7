// AccumulatorTakeGradient waiting through a ClientSession: a take holds
// back its step (never a thread) until enough gradients arrive from other
// steps; the Run's deadline and Session::Close end the wait, and a take
// that gave up takes nothing. Several threads applying at once, as
// SyncReplicasOptimizer's workers do, while the chief's take waits.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <thread>
#include <vector>

#include "tests/actors/accumulator_test_util.h"

namespace af::testing {
namespace {

BOOST_AUTO_TEST_SUITE(accumulator_blocking)

BOOST_AUTO_TEST_CASE(a_take_waits_for_num_required_then_increments_the_global_step) {
  DenseAccumulator acc(PartialTensorShape({2}), "blocking_wait");
  ClientSession session(acc.root);
  auto taken = std::async(std::launch::async, [&] {
    Tensor out;
    Status s = acc.Take(session, 2, &out);
    return s.ok() ? FloatsOf(out) : std::vector<float>{};
  });
  BOOST_TEST(StillBlocked(taken));
  BOOST_REQUIRE(acc.Apply(session, 0, {1.f, 10.f}).ok());
  BOOST_TEST(StillBlocked(taken));
  BOOST_REQUIRE(acc.Apply(session, 0, {3.f, 30.f}).ok());
  BOOST_TEST(taken.get() == (std::vector<float>{2.f, 20.f}));
  // Global step 1 now: a gradient of step 0 is stale.
  BOOST_REQUIRE(acc.Apply(session, 0, {5.f, 5.f}).ok());
  BOOST_TEST(acc.Num(session) == 0);
  BOOST_REQUIRE(acc.Apply(session, 1, {5.f, 5.f}).ok());
  BOOST_TEST(acc.Num(session) == 1);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(a_take_past_the_runs_deadline_leaves_the_accumulator_usable) {
  DenseAccumulator acc(PartialTensorShape({1}), "blocking_deadline");
  ClientSession session(acc.root);
  Tensor out;
  // Plans the steps first, so that the short deadline below ends a step
  // that is really waiting in the accumulator.
  BOOST_REQUIRE(acc.Apply(session, 0, {0.f}).ok());
  BOOST_REQUIRE(acc.Take(session, 1, &out).ok());
  for (int64_t round = 1; round <= 3; ++round) {
    BOOST_REQUIRE(acc.Apply(session, round, {1.f}).ok());
    Status s = acc.Take(session, 2, &out, 40);  // the step is aborted at its deadline
    BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
    // The gradient held stays, and the withdrawn take did not move the step.
    BOOST_TEST(acc.Num(session) == 1);
    BOOST_REQUIRE(acc.Apply(session, round, {float(round) * 4 - 1}).ok());
    s = acc.Take(session, 2, &out);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    BOOST_TEST(FloatsOf(out) == (std::vector<float>{float(round) * 2}));
  }
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(closing_the_session_cancels_a_waiting_take) {
  DenseAccumulator acc(PartialTensorShape({1}), "");  // private: goes with the session
  ClientSession session(acc.root);
  Tensor out;
  BOOST_REQUIRE(acc.Apply(session, 0, {1.f}).ok());
  BOOST_REQUIRE(acc.Take(session, 1, &out).ok());  // the step's plan is cached and warm
  auto blocked = std::async(std::launch::async, [&] {
    Tensor got;
    return acc.Take(session, 1, &got);
  });
  BOOST_TEST(StillBlocked(blocked));
  BOOST_REQUIRE(session.session()->Close().ok());
  Status s = blocked.get();
  BOOST_TEST(s.code() == Code::CANCELLED, s.ToString());
}

BOOST_AUTO_TEST_CASE(workers_apply_from_several_threads_while_the_chiefs_take_waits) {
  // SyncReplicasOptimizer's pattern: every step, each worker applies a
  // gradient of that step and the chief takes their mean; a straggler's
  // gradient of the previous step arrives late and is dropped.
  constexpr int kWorkers = 4;
  constexpr int64_t kSteps = 12;
  constexpr int64_t kWidth = 64;
  DenseAccumulator acc(PartialTensorShape({kWidth}), "blocking_workers");
  ClientSession session(acc.root);
  auto gradient = [](int worker, int64_t step) {
    std::vector<float> g(kWidth);
    for (int64_t i = 0; i < kWidth; ++i) g[i] = float(worker * 1000 + step * 10) + 0.001f * i;
    return g;
  };
  std::atomic<int64_t> steps_taken{0};  // the chief's takes so far
  std::vector<std::future<Status>> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.push_back(std::async(std::launch::async, [&, w]() -> Status {
      for (int64_t step = 0; step < kSteps; ++step) {
        while (steps_taken.load() < step) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        AF_RETURN_IF_ERROR(acc.Apply(session, step, gradient(w, step)));
        // Worker 0 also sends the previous step's gradient, too late.
        if (w == 0 && step > 0) {
          AF_RETURN_IF_ERROR(acc.Apply(session, step - 1, gradient(9, step)));
        }
      }
      return Status::OK();
    }));
  }
  for (int64_t step = 0; step < kSteps; ++step) {
    Tensor out;
    Status s = acc.Take(session, kWorkers, &out);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
    steps_taken.store(step + 1);
    const std::vector<float> got = FloatsOf(out);
    for (int64_t i = 0; i < kWidth; ++i) {
      double want = 0;
      for (int w = 0; w < kWorkers; ++w) want += gradient(w, step)[i];
      want /= kWorkers;
      BOOST_TEST(std::abs(got[i] - want) <= 1e-6 * std::abs(want), step << "," << i);
    }
  }
  for (auto& w : workers) {
    Status s = w.get();
    BOOST_TEST(s.ok(), s);
  }
  BOOST_TEST(acc.Num(session) == 0);
  BOOST_TEST(DroppedGradients("blocking_workers") == kSteps - 1);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::testing
