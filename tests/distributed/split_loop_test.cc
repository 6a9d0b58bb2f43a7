// While loops whose bodies span processes: two `actorflow server` children
// on 127.0.0.1 each run half of every iteration; the LoopCond value and
// the body's tensors (dead ones included) cross as worker push messages.
#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/loop_graphs_test_util.h"

namespace af {
namespace {

using testing::ExpectedNestedTotal;
using testing::ExpectedSplitLoopAcc;
using testing::LocalCpu;
using testing::ServerProcess;
using testing::SplitLoopOptions;

const std::string kTask1 = "/job:worker/replica:0/task:1/device:CPU:0";
const std::string kTask2 = "/job:worker/replica:0/task:2/device:CPU:0";

struct TwoServers {
  TwoServers() {
    Status s = one.Start({"--task", "1", "--threads", "2"});
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    s = two.Start({"--task", "2", "--threads", "2"});
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  }
  std::unique_ptr<Session> Connect(const tensorflow::GraphDef& graph) {
    SessionOptions options;
    options.remote_workers = {one.address(), two.address()};
    options.default_timeout_ms = 30000;
    return testing::SessionWithGraph(options, graph);
  }
  ServerProcess one, two;
};

Tensor Int(int32_t v) { return Tensor::Scalar<int32_t>(v); }

void CheckSplitLoop(Session* session, int n, bool cond_in_body) {
  testing::CheckSplitLoop(session, n, -4, cond_in_body);
}

BOOST_AUTO_TEST_CASE(a_loop_body_split_over_two_server_processes) {
  TwoServers servers;
  for (bool cond_in_body : {false, true}) {
    for (int parallel : {1, 10}) {
      BOOST_TEST_CONTEXT("cond_in_body " << cond_in_body << ", parallel_iterations " << parallel) {
        SplitLoopOptions o;
        o.control_device = kTask1;
        o.other_device = kTask2;
        o.parallel_iterations = parallel;
        o.cond_in_body = cond_in_body;
        auto session = servers.Connect(testing::SplitCounterLoop(o));
        for (int n : {0, 1, 10, 1000}) CheckSplitLoop(session.get(), n, cond_in_body);
        // Again: every step's rendezvous starts empty on both servers.
        for (int step = 0; step < 20; ++step) CheckSplitLoop(session.get(), step, cond_in_body);
        BOOST_TEST(session->Close().ok());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_loop_led_by_the_client_process_with_half_its_body_remote) {
  TwoServers servers;
  SplitLoopOptions o;
  o.control_device = LocalCpu(0);
  o.other_device = kTask2;
  o.cond_in_body = true;
  auto session = servers.Connect(testing::SplitCounterLoop(o));
  for (int n : {0, 1, 10, 1000}) CheckSplitLoop(session.get(), n, true);
  BOOST_TEST(session->Close().ok());
  // The condition in the other process, away from every loop variable.
  o.loop_cond_on_other = true;
  auto away = servers.Connect(testing::SplitCounterLoop(o));
  for (int n : {0, 1, 10, 1000}) CheckSplitLoop(away.get(), n, true);
  BOOST_TEST(away->Close().ok());
}

BOOST_AUTO_TEST_CASE(a_nested_loop_whose_inner_body_spans_two_processes) {
  TwoServers servers;
  for (int parallel : {1, 10}) {
    BOOST_TEST_CONTEXT("parallel_iterations " << parallel) {
      auto session = servers.Connect(testing::NestedSplitLoop(kTask1, kTask2, parallel));
      for (auto [m, n] : {std::pair{0, 2}, {1, 0}, {3, 4}, {8, 12}}) {
        std::vector<Tensor> out;
        Status s = session->Run({{"m", Int(m)}, {"n", Int(n)}, {"total0", Int(2)}},
                                {"total_out", "j_out"}, {}, &out);
        BOOST_TEST_REQUIRE(s.ok(), "m=" << m << " n=" << n << ": " << s.ToString());
        BOOST_TEST(out[0].scalar<int32_t>() == ExpectedNestedTotal(m, n, 2),
                   "m=" << m << " n=" << n);
        BOOST_TEST(out[1].scalar<int32_t>() == m);
      }
      BOOST_TEST(session->Close().ok());
    }
  }
}

}  // namespace
}  // namespace af
