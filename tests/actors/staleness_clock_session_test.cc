// StalenessClock and StalenessClockTick through a ClientSession, with
// worker threads ticking at once: the SSP bound as a property over random
// (seeded) compute delays, lockstep at staleness 0, the elastic rule end to
// end, deadlines, the stall inspector, and the errors that name the node.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/actors/queue_test_util.h"
#include "tests/actors/stall_log_test_util.h"

namespace af::testing {
namespace {

// A clock shared under `shared_name`; `worker` feeds `tick`.
struct Clock {
  Clock(const std::string& shared_name, int64_t workers, int64_t staleness,
        int64_t inactive_after_ms = 0, int64_t tick_timeout_ms = -1)
      : root(Scope::NewRootScope()) {
    worker = ops::Placeholder(root.WithOpName("worker"), DT_INT32);
    handle = ops::StalenessClock(
        root.WithOpName("clock"), workers, staleness,
        ops::StalenessClock::InactiveAfterMs(inactive_after_ms).SharedName(shared_name));
    tick = ops::StalenessClockTick(root.WithOpName("tick"), handle, worker,
                                   ops::StalenessClockTick::TimeoutMs(tick_timeout_ms));
  }

  Status Tick(const ClientSession& s, int32_t w, int64_t* clock,
              int64_t timeout_ms = kRunTimeoutMs) const {
    std::vector<Tensor> out;
    Status st = s.Run(WithTimeout(timeout_ms), {{worker, w}}, {tick}, {}, &out);
    if (st.ok()) *clock = out[0].scalar<int64_t>();
    return st;
  }

  Scope root;
  Output worker, handle, tick;
};

BOOST_AUTO_TEST_SUITE(staleness_clock)

// Every worker "computes" for a random while, marks its step finished and
// ticks; when the tick lets it go it is about to start step `clock`, and
// at that moment no worker may have finished fewer than clock - S steps.
// The test's counts run ahead of the clock's (a step is marked finished
// before its tick is sent), so the check can only be stricter than the
// clock's own.
BOOST_AUTO_TEST_CASE(no_worker_starts_more_than_s_steps_ahead_of_the_slowest) {
  constexpr int kWorkers = 4;
  constexpr int64_t kSteps = 16;
  for (int64_t staleness : {0, 1, 3}) {
    Clock clock("ssp_property_" + std::to_string(staleness), kWorkers, staleness);
    ClientSession session(clock.root);
    std::mutex mu;
    std::vector<int64_t> finished(kWorkers, 0);
    int64_t violations = 0, wrong_clocks = 0, max_lead = 0;
    std::vector<Status> errors(kWorkers);
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w) {
      workers.emplace_back([&, w] {
        std::mt19937 rng(static_cast<uint32_t>(1000 * staleness + w));
        // Worker 0 is a straggler, so the bound is really reached.
        std::uniform_int_distribution<int> delay_us(0, w == 0 ? 4000 : 1000);
        for (int64_t step = 0; step < kSteps; ++step) {
          std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
          {
            std::lock_guard<std::mutex> lock(mu);
            finished[w] = step + 1;
          }
          int64_t c = -1;
          Status s = clock.Tick(session, w, &c);
          if (!s.ok()) {
            errors[w] = s;
            return;
          }
          std::lock_guard<std::mutex> lock(mu);
          const int64_t lead = c - *std::min_element(finished.begin(), finished.end());
          max_lead = std::max(max_lead, lead);
          if (lead > staleness) ++violations;
          if (c != step + 1) ++wrong_clocks;
        }
      });
    }
    for (auto& t : workers) t.join();
    for (const Status& s : errors) BOOST_TEST(s.ok(), s);
    BOOST_TEST(violations == 0, "staleness " << staleness);
    BOOST_TEST(wrong_clocks == 0);
    BOOST_TEST(max_lead <= staleness);
    if (staleness == 0) BOOST_TEST(max_lead == 0);  // lockstep
    BOOST_TEST_MESSAGE("staleness " << staleness << ": largest lead seen " << max_lead);
    BOOST_REQUIRE(session.Reset({}).ok());
  }
}

BOOST_AUTO_TEST_CASE(a_silent_worker_stops_holding_the_others_back_and_rejoins_at_the_minimum) {
  Clock clock("ssp_elastic", 3, 0, /*inactive_after_ms=*/300);
  ClientSession session(clock.root);
  std::vector<std::vector<int64_t>> seen(2);
  std::vector<Status> errors(2);
  std::vector<std::thread> workers;
  // Workers 0 and 1 run in lockstep; worker 2 never ticks, so the first
  // step waits until it counts as silent, the others not at all.
  for (int w = 0; w < 2; ++w) {
    workers.emplace_back([&, w] {
      for (int step = 0; step < 5; ++step) {
        int64_t c = -1;
        errors[w] = clock.Tick(session, w, &c);
        if (!errors[w].ok()) return;
        seen[w].push_back(c);
      }
    });
  }
  for (auto& t : workers) t.join();
  for (const Status& s : errors) BOOST_TEST(s.ok(), s);
  BOOST_TEST(seen[0] == (std::vector<int64_t>{1, 2, 3, 4, 5}));
  BOOST_TEST(seen[1] == (std::vector<int64_t>{1, 2, 3, 4, 5}));
  // Back, it is level with the slowest active worker and goes on at once.
  int64_t c = -1;
  Status s = clock.Tick(session, 2, &c);
  BOOST_TEST(s.ok(), s);
  BOOST_TEST(c == 5);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(a_wait_ends_at_the_ticks_timeout_or_the_runs_deadline) {
  Clock own("ssp_deadline", 2, 0, 0, /*tick_timeout_ms=*/100);
  ClientSession session(own.root);
  int64_t c = -1;
  Status s = own.Tick(session, 0, &c);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  BOOST_TEST(Contains(s, "Timed out waiting on StalenessClock 'ssp_deadline': worker 0 at "
                         "clock 1 may be at most 0 steps ahead"),
             s);
  BOOST_TEST(Contains(s, "tick"), s);  // the node
  // Without a timeout of its own, the Run's deadline ends the wait.
  Clock plain("ssp_deadline_run", 2, 0);
  ClientSession other(plain.root);
  s = plain.Tick(other, 0, &c, /*timeout_ms=*/100);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  // Both ticks were recorded: worker 1's first step lets worker 0 go.
  BOOST_TEST(plain.Tick(other, 1, &c).ok());
  BOOST_TEST(c == 1);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(a_waiting_tick_is_reported_by_the_stall_inspector_once) {
  StallLog stall_log;
  SessionOptions options = stall_log.Options(200);
  Clock clock("stalled_clock", 2, 0);
  ClientSession session(clock.root, options);
  int64_t c = -1;
  Status s = clock.Tick(session, 1, &c, 1200);  // several inspections while it waits
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  const std::vector<std::string> lines = stall_log.Lines();
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  const std::string head = "actorflow stall inspector: StalenessClock 'stalled_clock': a tick "
                           "has waited ";
  BOOST_TEST(lines.front().substr(0, head.size()) == head, lines.front());
  BOOST_TEST(lines.front().find("worker 1 at clock 1 may be at most 0 steps ahead of the "
                                 "slowest active worker, worker 0 at clock 0") != std::string::npos,
             lines.front());
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_CASE(bad_workers_and_mismatched_shared_clocks_are_refused) {
  Scope root = Scope::NewRootScope();
  auto a = ops::StalenessClock(root.WithOpName("a"), 3, 0,
                               ops::StalenessClock::SharedName("ssp_mismatch"));
  auto b = ops::StalenessClock(root.WithOpName("b"), 3, 1,
                               ops::StalenessClock::SharedName("ssp_mismatch"));
  auto tick = ops::StalenessClockTick(root.WithOpName("bad_tick"), a, 7);
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_REQUIRE(Fetch(session, {a}, &out).ok());
  Status s = Fetch(session, {b}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(Contains(s, "the shared StalenessClock 'ssp_mismatch' has staleness 0, not 1"), s);
  BOOST_TEST(Contains(s, "'b'"), s);
  s = Fetch(session, {tick}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(Contains(s, "worker 7 is out of range (3 workers)"), s);
  BOOST_TEST(Contains(s, "bad_tick"), s);
  BOOST_REQUIRE(session.Reset({}).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::testing
