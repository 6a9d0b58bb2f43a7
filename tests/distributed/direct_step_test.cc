// The direct step path (issue 25; actors/remote_step.h,
// actors/worker/direct_steps.h): once a step is cached, the client's thread
// runs it with a remote server's partitions, RunGraph and tensors crossing
// on the data plane. Results agree with the actors' path, and the step still
// stops: at its deadline, on an error there, when the session closes, and
// when the server dies.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "actors/remote_step.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/remote_session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using testing::ConnectTo;
using testing::GraphBuilder;
using testing::LocalCpu;
using testing::Matrix;
using testing::ServerProcess;

const std::string kRemoteCpu = "/job:worker/replica:0/task:1/device:CPU:0";

// x (here) -> m = x * w (there) -> y = m + x (here); z = Identity(m) (there,
// fetched from the server's reply); q: a queue there nobody fills.
tensorflow::GraphDef SplitGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("w", Matrix(2, 2, {1, 2, 3, 4}), kRemoteCpu);
  b.Op("MatMul", "m", {"x", "w"}, DT_FLOAT, kRemoteCpu);
  b.Op("Add", "y", {"m", "x"}, DT_FLOAT, LocalCpu(0));
  b.Op("Identity", "z", {"m"}, DT_FLOAT, kRemoteCpu);
  b.Placeholder("bad", DT_FLOAT, LocalCpu(0));
  tensorflow::NodeDef* check = b.Op("CheckNumerics", "checked", {"bad"}, DT_FLOAT, kRemoteCpu);
  (*check->mutable_attr())["message"].set_s("bad value");
  b.Op("Identity", "checked_here", {"checked"}, DT_FLOAT, LocalCpu(0));
  tensorflow::NodeDef* q = b.Add("q", "FIFOQueueV2", {}, kRemoteCpu);
  (*q->mutable_attr())["component_types"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  tensorflow::NodeDef* deq = b.Add("deq", "QueueDequeueV2", {"q"}, kRemoteCpu);
  (*deq->mutable_attr())["component_types"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  b.Op("Identity", "deq_here", {"deq"}, DT_FLOAT, LocalCpu(0));
  return b.graph();
}

void RunAndCheck(Session* session, float x0) {
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Matrix(1, 2, {x0, -1})}}, {"y", "z"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  // m = [x0 - 3, 2 x0 - 4]
  BOOST_TEST(out[1].data<float>()[0] == x0 - 3);
  BOOST_TEST(out[1].data<float>()[1] == 2 * x0 - 4);
  BOOST_TEST(out[0].data<float>()[0] == 2 * x0 - 3);
  BOOST_TEST(out[0].data<float>()[1] == 2 * x0 - 5);
}

// Runs the cached step a few times so that later runs take the direct path.
void WarmUp(Session* session) {
  for (int i = 0; i < 4; ++i) RunAndCheck(session, 1.0f + i);
}

Status RunWithTimeout(Session* session, const std::string& fetch, int64_t timeout_ms,
                      std::vector<std::pair<std::string, Tensor>> feeds = {}) {
  RunOptions options;
  options.timeout_ms = timeout_ms;
  std::vector<Tensor> out;
  return session->Run(options, feeds, {fetch}, {}, &out, nullptr);
}

// A server, a session to it with the graph, and the dequeue step that never
// ends run the first times (through the actors: each times out), so that
// the next one takes the direct path.
std::unique_ptr<Session> SessionWithCachedDequeue(ServerProcess* server) {
  BOOST_TEST_REQUIRE(server->Start({"--task", "1"}).ok());
  auto session = ConnectTo(*server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(RunWithTimeout(session.get(), "deq_here", 200).code() == Code::DEADLINE_EXCEEDED);
  }
  return session;
}

BOOST_AUTO_TEST_SUITE(direct_step)

BOOST_AUTO_TEST_CASE(cached_remote_steps_run_on_the_callers_thread_and_agree) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1"}).ok());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  WarmUp(session.get());
  const uint64_t before = actors::RemoteStepRunner::StepsRun();
  for (int i = 0; i < 50; ++i) RunAndCheck(session.get(), 0.5f * i);
  // Every one of them, once the connections were up.
  BOOST_TEST(actors::RemoteStepRunner::StepsRun() - before >= 45u, server.output());
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(with_the_direct_path_off_steps_go_through_the_actors_alike) {
  setenv("ACTORFLOW_DIRECT_PATH", "off", 1);
  ServerProcess server;
  Status started = server.Start({"--task", "1"});
  unsetenv("ACTORFLOW_DIRECT_PATH");
  BOOST_TEST_REQUIRE(started.ok());
  setenv("ACTORFLOW_DIRECT_PATH", "off", 1);
  auto session = ConnectTo(server);
  unsetenv("ACTORFLOW_DIRECT_PATH");
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  const uint64_t before = actors::RemoteStepRunner::StepsRun();
  for (int i = 0; i < 10; ++i) RunAndCheck(session.get(), 2.0f * i);
  BOOST_TEST(actors::RemoteStepRunner::StepsRun() == before);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(an_error_on_the_server_ends_a_direct_step_with_its_status) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1"}).ok());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 4; ++i) {
    Status s = session->Run({{"bad", Tensor::Scalar<float>(1.0f)}}, {"checked_here"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  const uint64_t before = actors::RemoteStepRunner::StepsRun();
  Status s =
      session->Run({{"bad", Tensor::Scalar<float>(std::nanf(""))}}, {"checked_here"}, {}, &out);
  BOOST_TEST(actors::RemoteStepRunner::StepsRun() == before + 1);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("bad value") != std::string::npos, s);
  // The session goes on.
  s = session->Run({{"bad", Tensor::Scalar<float>(2.0f)}}, {"checked_here"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 2.0f);
  WarmUp(session.get());
}

BOOST_AUTO_TEST_CASE(a_direct_step_that_waits_there_stops_at_its_deadline_and_on_close) {
  ServerProcess server;
  auto session = SessionWithCachedDequeue(&server);
  const uint64_t before = actors::RemoteStepRunner::StepsRun();
  const auto start = Clock::now();
  Status s = RunWithTimeout(session.get(), "deq_here", 300);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  BOOST_TEST(actors::RemoteStepRunner::StepsRun() == before + 1);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  BOOST_TEST(seconds < 5.0);
  // The server was told: its dequeue ended, and other steps run.
  WarmUp(session.get());
  // Close aborts a direct step still waiting.
  auto running = std::async(std::launch::async,
                            [&] { return RunWithTimeout(session.get(), "deq_here", 60000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BOOST_TEST(session->Close().ok());
  BOOST_TEST_REQUIRE((running.wait_for(std::chrono::seconds(10)) == std::future_status::ready));
  s = running.get();
  BOOST_TEST(s.code() == Code::CANCELLED, s);
}

BOOST_AUTO_TEST_CASE(a_server_that_dies_under_a_direct_step_fails_it_before_the_deadline) {
  ServerProcess server;
  auto session = SessionWithCachedDequeue(&server);
  const uint64_t before = actors::RemoteStepRunner::StepsRun();
  auto running = std::async(std::launch::async,
                            [&] { return RunWithTimeout(session.get(), "deq_here", 60000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto killed = Clock::now();
  server.Stop(SIGKILL);
  BOOST_TEST_REQUIRE((running.wait_for(std::chrono::seconds(20)) == std::future_status::ready));
  const Status s = running.get();
  BOOST_TEST_MESSAGE("the direct step failed "
                     << std::chrono::duration<double>(Clock::now() - killed).count()
                     << " s after the server died: " << s);
  BOOST_TEST(actors::RemoteStepRunner::StepsRun() == before + 1);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
}

BOOST_AUTO_TEST_CASE(a_fed_tensor_whose_only_consumer_is_there) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1", "--stall_warning_ms", "1000"}).ok());
  auto session = ConnectTo(server);
  GraphBuilder b;
  b.Placeholder("bytes", DT_UINT8, LocalCpu(0));
  tensorflow::NodeDef* shape = b.Op("Shape", "shape", {"bytes"}, DT_UINT8, kRemoteCpu);
  (*shape->mutable_attr())["out_type"].set_type(tensorflow::DT_INT64);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  Tensor bytes(DT_UINT8, TensorShape{4096});
  for (int i = 0; i < 8; ++i) {
    std::vector<Tensor> out;
    Status s = RunWithTimeout(session.get(), "shape", 5000, {{"bytes", bytes}});
    if (!s.ok()) server.WaitForOutput("no such line", std::chrono::seconds(1));
    BOOST_TEST_REQUIRE(s.ok(), s << " at run " << i << "\n" << server.output());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
