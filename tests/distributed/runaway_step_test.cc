// Steps that stop: a while loop of two billion iterations on a server ends
// at the server's step limit (--max_step_secs), at the client's deadline,
// and when the server is told to stop (SIGTERM), because the executor
// checks the step's cancellation between nodes. The server serves the
// next step afterwards.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <future>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/loop_graphs_test_util.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using testing::ServerProcess;

constexpr const char* kServerCpu = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr int32_t kForever = 2000000000;

std::unique_ptr<Session> LoopSession(const ServerProcess& server) {
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 120000;
  // A two-core machine busy with the loop may answer heartbeats late.
  options.worker_lost_after_ms = 20000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  testing::SplitLoopOptions loop;
  loop.control_device = kServerCpu;
  loop.other_device = kServerCpu;
  s = session->Extend(testing::SplitCounterLoop(loop));
  BOOST_TEST_REQUIRE(s.ok(), s);
  return session;
}

// `timeout_ms` 0: the session's default.
Status RunLoop(Session* session, int32_t n, std::vector<Tensor>* out, int64_t timeout_ms = 0) {
  RunOptions options;
  options.timeout_ms = timeout_ms;
  return session->Run(options,
                      {{"n", Tensor::Scalar<int32_t>(n)}, {"acc0", Tensor::Scalar<int32_t>(0)}},
                      {"i_out"}, {}, out);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The server still runs steps: a loop of 10 ends with i == 10.
void ExpectServes(Session* session) {
  std::vector<Tensor> out;
  Status s = RunLoop(session, 10, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<int32_t>() == 10);
}

BOOST_AUTO_TEST_SUITE(runaway_steps)

BOOST_AUTO_TEST_CASE(the_servers_step_limit_ends_a_runaway_loop) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--max_step_secs", "1"}).ok());
  auto session = LoopSession(server);
  const auto start = Clock::now();
  std::vector<Tensor> out;
  Status s = RunLoop(session.get(), kForever, &out);
  const double took = SecondsSince(start);
  BOOST_TEST_MESSAGE("stopped after " << took << " s: " << s);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  BOOST_TEST(s.message().find("--max_step_secs") != std::string::npos, s);
  BOOST_TEST(took < 30.0);
  ExpectServes(session.get());
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(the_clients_deadline_ends_a_runaway_loop_on_the_server) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({}).ok());
  auto session = LoopSession(server);
  std::vector<Tensor> out;
  Status s = RunLoop(session.get(), kForever, &out, /*timeout_ms=*/1000);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  // The loop stopped on the server too: a server still computing it would
  // not stop for SIGTERM within the bound below (it did before).
  ExpectServes(session.get());
  BOOST_TEST(session->Close().ok());
  const auto start = Clock::now();
  const int status = server.Stop(SIGTERM, std::chrono::seconds(20));
  BOOST_TEST_MESSAGE("server exit status " << status << " after " << SecondsSince(start) << " s");
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), status);
}

BOOST_AUTO_TEST_CASE(sigterm_stops_a_server_in_the_middle_of_a_runaway_loop) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({}).ok());
  auto session = LoopSession(server);
  auto running = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return RunLoop(session.get(), kForever, &out);
  });
  // Let the loop get going.
  BOOST_TEST((running.wait_for(std::chrono::seconds(1)) == std::future_status::timeout));
  const auto start = Clock::now();
  const int status = server.Stop(SIGTERM, std::chrono::seconds(20));
  const double took = SecondsSince(start);
  BOOST_TEST_MESSAGE("server exit status " << status << " after " << took << " s");
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), status);
  BOOST_TEST(took < 10.0);
  BOOST_TEST_REQUIRE((running.wait_for(std::chrono::seconds(60)) == std::future_status::ready));
  const Status s = running.get();
  BOOST_TEST_MESSAGE("the client's Run: " << s);
  BOOST_TEST(!s.ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
