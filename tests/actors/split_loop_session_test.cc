// While loops whose nodes sit on two devices of one process: the
// partitions' loop control (control-flow/partition_loop_control.h) must
// give both devices the same iterations, frames and dead tensors.
#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "tests/loop_graphs_test_util.h"

namespace af {
namespace {

using testing::ExpectedNestedTotal;
using testing::ExpectedSplitLoopAcc;
using testing::LocalCpu;
using testing::SplitLoopOptions;

std::unique_ptr<Session> TwoCpuSession(const tensorflow::GraphDef& graph) {
  SessionOptions options;
  options.num_cpu_devices = 2;
  options.threads_per_device = 2;
  options.default_timeout_ms = 30000;
  return testing::SessionWithGraph(options, graph);
}

Tensor Int(int32_t v) { return Tensor::Scalar<int32_t>(v); }

void CheckSplitLoop(Session* session, int n, bool cond_in_body) {
  testing::CheckSplitLoop(session, n, 5, cond_in_body);
}

SplitLoopOptions Options(int parallel_iterations) {
  SplitLoopOptions o;
  o.control_device = LocalCpu(0);
  o.other_device = LocalCpu(1);
  o.parallel_iterations = parallel_iterations;
  return o;
}

BOOST_AUTO_TEST_CASE(a_loop_with_its_body_on_two_devices_counts_right) {
  for (int parallel : {1, 10}) {
    BOOST_TEST_CONTEXT("parallel_iterations " << parallel) {
      auto session = TwoCpuSession(testing::SplitCounterLoop(Options(parallel)));
      for (int n : {0, 1, 10, 1000}) CheckSplitLoop(session.get(), n, false);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_cond_in_the_body_sends_dead_branches_across) {
  for (int parallel : {1, 10}) {
    BOOST_TEST_CONTEXT("parallel_iterations " << parallel) {
      SplitLoopOptions o = Options(parallel);
      o.cond_in_body = true;
      auto session = TwoCpuSession(testing::SplitCounterLoop(o));
      for (int n : {0, 1, 2, 11, 1000}) CheckSplitLoop(session.get(), n, true);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_loop_fed_from_and_read_on_the_other_device) {
  SplitLoopOptions o = Options(10);
  o.io_on_other = true;
  auto session = TwoCpuSession(testing::SplitCounterLoop(o));
  for (int n : {0, 1, 10, 1000}) CheckSplitLoop(session.get(), n, false);
  // The leader on the other device: the condition and loop variables on
  // CPU:1, half the body on CPU:0.
  std::swap(o.control_device, o.other_device);
  auto swapped = TwoCpuSession(testing::SplitCounterLoop(o));
  for (int n : {0, 1, 10, 1000}) CheckSplitLoop(swapped.get(), n, false);
}

BOOST_AUTO_TEST_CASE(a_loop_condition_away_from_every_loop_variable) {
  for (int parallel : {1, 10}) {
    for (bool cond_in_body : {false, true}) {
      BOOST_TEST_CONTEXT("parallel_iterations " << parallel << ", cond_in_body " << cond_in_body) {
        SplitLoopOptions o = Options(parallel);
        o.loop_cond_on_other = true;
        o.cond_in_body = cond_in_body;
        auto session = TwoCpuSession(testing::SplitCounterLoop(o));
        for (int n : {0, 1, 10, 1000}) CheckSplitLoop(session.get(), n, cond_in_body);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_nested_loop_whose_inner_body_spans_both_devices) {
  for (int parallel : {1, 10}) {
    BOOST_TEST_CONTEXT("parallel_iterations " << parallel) {
      auto session = TwoCpuSession(testing::NestedSplitLoop(LocalCpu(0), LocalCpu(1), parallel));
      for (auto [m, n] : {std::pair{0, 3}, {1, 0}, {3, 4}, {10, 20}, {2, 1}}) {
        std::vector<Tensor> out;
        Status s = session->Run({{"m", Int(m)}, {"n", Int(n)}, {"total0", Int(7)}},
                                {"total_out", "j_out"}, {}, &out);
        BOOST_TEST_REQUIRE(s.ok(), "m=" << m << " n=" << n << ": " << s.ToString());
        BOOST_TEST(out[0].scalar<int32_t>() == ExpectedNestedTotal(m, n, 7),
                   "m=" << m << " n=" << n);
        BOOST_TEST(out[1].scalar<int32_t>() == m);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_same_split_loop_step_runs_many_times) {
  // Every step has its own rendezvous; a key left over from an iteration
  // of one step must never satisfy a Recv of the next (the counts would be
  // off, or a step would hang until its timeout).
  auto session = TwoCpuSession(testing::SplitCounterLoop(Options(4)));
  for (int step = 0; step < 200; ++step) CheckSplitLoop(session.get(), step % 7 * 3, false);
  SplitLoopOptions o = Options(4);
  o.cond_in_body = true;
  auto with_cond = TwoCpuSession(testing::SplitCounterLoop(o));
  for (int step = 0; step < 200; ++step) CheckSplitLoop(with_cond.get(), step % 5 * 2 + 1, true);
}

}  // namespace
}  // namespace af
