// StalenessClockCore without its actor, on a fake time: the SSP rule (a
// tick waits while its clock is more than `staleness` ahead of the slowest
// active worker), lockstep at staleness 0, withdrawn waits, the elastic
// rule (a silent worker left out of the minimum, logged, and rejoining at
// the minimum), the recheck timer's schedule and the stall report.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "actors/coordination/staleness_clock_core.h"

namespace af::actors {
namespace {

constexpr int64_t kMs = 1000000;

struct Outcome {
  bool done = false;
  Status status;
  int64_t clock = -1;
};

struct Harness {
  Harness(int32_t workers, int64_t staleness, int64_t inactive_after_ms = 0)
      : core(Spec(workers, staleness, inactive_after_ms), 0,
             [this](const std::string& line) { log.push_back(line); }) {}

  static StalenessClockSpec Spec(int32_t workers, int64_t staleness, int64_t inactive_after_ms) {
    StalenessClockSpec spec;
    spec.name = "core_clock";
    spec.num_workers = workers;
    spec.staleness = staleness;
    spec.inactive_after_ms = inactive_after_ms;
    return spec;
  }

  std::shared_ptr<Outcome> Tick(int32_t worker, int64_t now_ms = 0) {
    auto out = std::make_shared<Outcome>();
    auto r = std::make_shared<ClockTickRequest>();
    r->id = next_id++;
    r->worker = worker;
    r->done = [out](const Status& s, int64_t clock) {
      out->done = true;
      out->status = s;
      out->clock = clock;
    };
    last_id = r->id;
    core.Arrive(r, now_ms * kMs);
    return out;
  }

  std::vector<std::string> log;
  StalenessClockCore core;
  uint64_t next_id = 1;
  uint64_t last_id = 0;
};

BOOST_AUTO_TEST_CASE(staleness_zero_is_lockstep) {
  Harness h(3, 0);
  for (int64_t step = 1; step <= 4; ++step) {
    auto a = h.Tick(0);
    auto b = h.Tick(2);
    BOOST_TEST(!a->done);  // worker 1 has not finished this step
    BOOST_TEST(!b->done);
    auto c = h.Tick(1);
    // The last one in lets everybody go, on the same clock.
    BOOST_TEST(a->done);
    BOOST_TEST(b->done);
    BOOST_TEST(c->done);
    BOOST_TEST(a->clock == step);
    BOOST_TEST(b->clock == step);
    BOOST_TEST(c->clock == step);
    BOOST_TEST(a->status.ok());
  }
  BOOST_TEST(h.core.num_waiting() == 0u);
  BOOST_TEST(h.log.empty());
}

BOOST_AUTO_TEST_CASE(a_worker_runs_at_most_staleness_steps_ahead) {
  Harness h(3, 2);
  // Worker 0 may finish steps 1 and 2 while the others sit at 0...
  BOOST_TEST(h.Tick(0)->done);
  BOOST_TEST(h.Tick(0)->done);
  // ...but not start a fourth (clock 3 is 3 ahead of 0).
  auto third = h.Tick(0);
  BOOST_TEST(!third->done);
  BOOST_TEST(h.core.clock(0) == 3);
  BOOST_TEST(h.Tick(1)->done);  // worker 1 at 1: worker 2 is still the slowest
  BOOST_TEST(!third->done);
  BOOST_TEST(h.Tick(2)->done);  // the minimum is 1 now: 3 - 1 <= 2
  BOOST_TEST(third->done);
  BOOST_TEST(third->clock == 3);
}

BOOST_AUTO_TEST_CASE(a_withdrawn_wait_keeps_its_recorded_step) {
  Harness h(2, 0);
  auto waiting = h.Tick(0, 5);
  BOOST_TEST(!waiting->done);
  h.core.Withdraw(h.last_id, Code::DEADLINE_EXCEEDED, 2005 * kMs);
  BOOST_TEST(waiting->done);
  BOOST_TEST(waiting->status.code() == Code::DEADLINE_EXCEEDED);
  BOOST_TEST(waiting->status.message() ==
                 "Timed out waiting on StalenessClock 'core_clock': worker 0 at clock 1 may be "
                 "at most 0 steps ahead of the slowest active worker, worker 1 at clock 0 (last "
                 "tick 2.0 s ago)",
             waiting->status);
  BOOST_TEST(h.core.clock(0) == 1);  // the step it stands for was finished
  // A second withdrawal of the same tick finds nothing.
  h.core.Withdraw(h.last_id, Code::CANCELLED, 2006 * kMs);
  BOOST_TEST(waiting->status.code() == Code::DEADLINE_EXCEEDED);
  auto other = h.Tick(1, 2010);
  BOOST_TEST(other->done);
  BOOST_TEST(other->clock == 1);
}

BOOST_AUTO_TEST_CASE(a_worker_out_of_range_is_refused_and_records_nothing) {
  Harness h(2, 0);
  auto bad = h.Tick(2);
  BOOST_TEST(bad->done);
  BOOST_TEST(bad->status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(bad->status.message() ==
             "StalenessClock 'core_clock': worker 2 is out of range (2 workers)");
  BOOST_TEST(h.Tick(-1)->status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(h.core.clock(0) == 0);
  BOOST_TEST(h.core.clock(1) == 0);
}

BOOST_AUTO_TEST_CASE(a_silent_worker_is_left_out_and_rejoins_at_the_minimum) {
  Harness h(3, 1, /*inactive_after_ms=*/1000);
  // Workers 0 and 1 go on; worker 2 never ticks.
  BOOST_TEST(h.Tick(0, 100)->done);
  BOOST_TEST(h.Tick(1, 100)->done);
  auto held = h.Tick(0, 200);  // clock 2, two ahead of worker 2
  BOOST_TEST(!held->done);
  // The earliest moment worker 2 counts as silent: its silence started at
  // creation (time 0).
  BOOST_TEST(h.core.NextRecheckNs() == 1000 * kMs + 1);
  h.core.Recheck(999 * kMs);
  BOOST_TEST(!held->done);
  h.core.Recheck(1001 * kMs);
  BOOST_TEST(held->done);
  BOOST_TEST(held->clock == 2);
  BOOST_TEST(!h.core.active(2));
  BOOST_TEST_REQUIRE(h.log.size() == 1u);
  BOOST_TEST(h.log[0] ==
             "StalenessClock 'core_clock': worker 2 left out of the minimum: no tick for 1.0 s "
             "(its clock 0); the others go on without it");
  // Without worker 2 the bound is between 0 and 1 alone.
  BOOST_TEST(h.Tick(1, 1100)->done);  // 1 at 2
  BOOST_TEST(h.Tick(0, 1100)->done);  // 0 at 3
  BOOST_TEST(h.Tick(1, 1100)->done);  // 1 at 3
  // Worker 2 comes back: it starts level with the slowest active worker.
  auto back = h.Tick(2, 1500);
  BOOST_TEST(back->done);
  BOOST_TEST(back->clock == 3);
  BOOST_TEST(h.core.active(2));
  BOOST_TEST_REQUIRE(h.log.size() == 2u);
  BOOST_TEST(h.log[1] ==
             "StalenessClock 'core_clock': worker 2 rejoins at clock 3 (it had finished 0 steps)");
}

BOOST_AUTO_TEST_CASE(a_waiting_worker_is_never_counted_as_silent) {
  Harness h(2, 0, /*inactive_after_ms=*/100);
  auto waiting = h.Tick(0, 0);
  BOOST_TEST(!waiting->done);
  // Worker 0 has not ticked for long, but it waits on worker 1: only
  // worker 1 may be left out, and only it is scheduled for a recheck.
  BOOST_TEST(h.core.NextRecheckNs() == 100 * kMs + 1);
  h.core.Recheck(5000 * kMs);
  BOOST_TEST(waiting->done);
  BOOST_TEST(h.core.active(0));
  BOOST_TEST(!h.core.active(1));
  BOOST_TEST(h.core.NextRecheckNs() == 0);  // nothing waits
}

BOOST_AUTO_TEST_CASE(a_worker_let_go_after_a_long_wait_is_not_silent) {
  Harness h(3, 0, /*inactive_after_ms=*/100);
  auto a = h.Tick(0, 0);
  auto b = h.Tick(1, 0);
  h.core.Recheck(150 * kMs);  // worker 2 is left out; 0 and 1 go on
  BOOST_TEST(a->done);
  BOOST_TEST(b->done);
  BOOST_TEST(h.log.size() == 1u);
  // Their silence started when they were let go, not at their ticks.
  auto again = h.Tick(0, 200);
  BOOST_TEST(!again->done);
  BOOST_TEST(h.core.active(1));
  BOOST_TEST(h.Tick(1, 220)->done);
  BOOST_TEST(again->done);
  BOOST_TEST(h.log.size() == 1u);
}

BOOST_AUTO_TEST_CASE(without_inactive_after_nobody_is_left_out) {
  Harness h(2, 0);
  auto waiting = h.Tick(0, 0);
  BOOST_TEST(h.core.NextRecheckNs() == 0);
  h.core.Recheck(int64_t{3600} * 1000 * kMs);
  BOOST_TEST(!waiting->done);
  h.core.FailAll(errors::Cancelled("gone"));
  BOOST_TEST(waiting->status.code() == Code::CANCELLED);
}

BOOST_AUTO_TEST_CASE(a_waiting_tick_is_reported_once) {
  Harness h(2, 0);
  auto waiting = h.Tick(1, 100);
  std::vector<std::string> lines;
  BOOST_TEST(h.core.InspectStalls(150 * kMs, 50 * kMs, &lines));
  BOOST_TEST(lines.empty());  // it arrived after "waiting since"
  BOOST_TEST(h.core.InspectStalls(12100 * kMs, 2100 * kMs, &lines));
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0] ==
             "StalenessClock 'core_clock': a tick has waited 12 s: worker 1 at clock 1 may be at "
             "most 0 steps ahead of the slowest active worker, worker 0 at clock 0 (last tick "
             "12.1 s ago)");
  BOOST_TEST(h.core.InspectStalls(24000 * kMs, 14000 * kMs, &lines));
  BOOST_TEST(lines.size() == 1u);  // once
  h.Tick(0, 24000);
  BOOST_TEST(waiting->done);
  BOOST_TEST(!h.core.InspectStalls(25000 * kMs, 15000 * kMs, &lines));
}

}  // namespace
}  // namespace af::actors
