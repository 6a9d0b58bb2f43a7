// Failure detection across processes (whitepaper §3.3): a worker killed
// with SIGKILL or hung with SIGSTOP in the middle of a step fails the step
// with UNAVAILABLE naming the task, well before the step's deadline; the
// startup rendezvous waits for late tasks and names missing ones; a task
// restarted on its address is a new incarnation that a new session uses.
// Detection times are printed (run with --log_level=message), not asserted.
#include <signal.h>

#include <chrono>
#include <future>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "actors/transport/wire_probe.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using testing::GraphBuilder;
using testing::LocalCpu;
using testing::ServerProcess;

const std::string kTask = "/job:worker/replica:0/task:1";
const std::string kRemoteCpu = kTask + "/device:CPU:0";

SessionOptions Options(const std::vector<std::string>& workers) {
  SessionOptions options;
  options.remote_workers = workers;
  options.threads_per_device = 1;
  options.default_timeout_ms = 30000;
  return options;
}

// A step that waits on the server forever: a Recv nobody sends to.
tensorflow::GraphDef StuckGraph() {
  GraphBuilder b;
  tensorflow::NodeDef* recv = b.Add("stuck", "_Recv", {}, kRemoteCpu);
  auto& attr = *recv->mutable_attr();
  attr["tensor_type"].set_type(tensorflow::DT_FLOAT);
  attr["tensor_name"].set_s("nobody_sends_this");
  attr["send_device"].set_s(kRemoteCpu);
  attr["send_device_incarnation"].set_i(1);
  attr["recv_device"].set_s(kRemoteCpu);
  b.Op("Identity", "y", {"stuck"}, DT_FLOAT, LocalCpu(0));
  b.Const("local", Tensor::Scalar<float>(3), LocalCpu(0));
  b.Const("remote", Tensor::Scalar<float>(4), kRemoteCpu);
  return b.graph();
}

// Starts `server` as task 1 and opens a session on it holding StuckGraph.
std::unique_ptr<Session> StuckSession(ServerProcess* server) {
  BOOST_TEST_REQUIRE(server->Start({"--task", "1"}).ok());
  std::unique_ptr<Session> session;
  Status s = Session::Create(Options({server->address()}), &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(session->Extend(StuckGraph()).ok());
  return session;
}

// Starts the stuck step, applies `fault` to the server, and returns the
// step's status and the seconds from the fault to the step's end.
Status FailMidStep(Session* session, const std::function<void()>& fault, double* seconds) {
  auto running = std::async(std::launch::async, [session] {
    std::vector<Tensor> out;
    return session->Run({}, {"y"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto at = Clock::now();
  fault();
  if (running.wait_for(std::chrono::seconds(25)) != std::future_status::ready) {
    return errors::DeadlineExceeded("the step did not end after the fault");
  }
  Status s = running.get();
  *seconds = std::chrono::duration<double>(Clock::now() - at).count();
  return s;
}

BOOST_AUTO_TEST_CASE(kill_9_of_a_worker_fails_the_step_naming_the_task) {
  ServerProcess server;
  std::unique_ptr<Session> session = StuckSession(&server);
  Status s;
  double seconds = 0;
  s = FailMidStep(session.get(), [&] { server.Stop(SIGKILL); }, &seconds);
  BOOST_TEST_MESSAGE("kill -9 of a worker detected after " << seconds << " s: " << s);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find(kTask + " at " + server.address()) != std::string::npos, s);
  BOOST_TEST(s.message().find("connection lost") != std::string::npos, s);
  BOOST_TEST(seconds < 15.0);  // not the step's 30 s deadline
  // Steps that do not need the lost task still run; those that do fail at once.
  std::vector<Tensor> out;
  s = session->Run({}, {"local"}, {}, &out);
  BOOST_TEST(s.ok(), s);
  s = session->Run({}, {"remote"}, {}, &out);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find(kTask) != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(sigstop_of_a_worker_is_detected_by_heartbeats) {
  ServerProcess server;
  std::unique_ptr<Session> session = StuckSession(&server);
  Status s;
  double seconds = 0;
  s = FailMidStep(session.get(), [&] { server.Signal(SIGSTOP); }, &seconds);
  BOOST_TEST_MESSAGE("SIGSTOP of a worker detected after " << seconds << " s: " << s);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find(kTask) != std::string::npos, s);
  BOOST_TEST(s.message().find("no heartbeat for") != std::string::npos, s);
  BOOST_TEST(seconds < 15.0);
  server.Signal(SIGCONT);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(a_worker_that_hangs_while_a_step_registers_fails_the_run_at_detection) {
  // The first Run of "remote" registers a partition with the server, which
  // never answers: the Run must end when heartbeats declare the task lost,
  // not at its 30 s deadline.
  ServerProcess server;
  std::unique_ptr<Session> session = StuckSession(&server);
  Status s;
  server.Signal(SIGSTOP);
  const auto at = Clock::now();
  std::vector<Tensor> out;
  s = session->Run({}, {"remote"}, {}, &out);
  const double seconds = std::chrono::duration<double>(Clock::now() - at).count();
  BOOST_TEST_MESSAGE("a Run registering with a hung worker ended after " << seconds << " s: "
                                                                          << s);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find(kTask) != std::string::npos, s);
  BOOST_TEST(s.message().find("no heartbeat for") != std::string::npos, s);
  server.Signal(SIGCONT);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(a_restarted_task_is_a_new_incarnation_and_rejoins_its_session) {
  ServerProcess first;
  BOOST_TEST_REQUIRE(first.Start({"--task", "1"}).ok());
  const uint16_t port = first.port();
  std::unique_ptr<Session> before;
  BOOST_TEST_REQUIRE(Session::Create(Options({first.address()}), &before).ok());
  const uint64_t old_incarnation = before->ListDevices().back().incarnation;
  BOOST_TEST_REQUIRE(before->Extend(StuckGraph()).ok());
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(before->Run({}, {"remote"}, {}, &out).ok());
  first.Stop(SIGKILL);
  Status s = before->Run({}, {"remote"}, {}, &out);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find(kTask) != std::string::npos, s);

  ServerProcess second;  // the cluster manager restarts the task on its address
  BOOST_TEST_REQUIRE(second.Start({"--task", "1", "--port", std::to_string(port)}).ok());
  BOOST_TEST(second.port() == port);
  // The session reconnects on its own: the same session runs on the new
  // process once the master took it back (plans rebuilt for the new
  // incarnation).
  const auto restarted = Clock::now();
  do {
    s = before->Run({}, {"remote"}, {}, &out);
    if (s.ok()) break;
    BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (Clock::now() - restarted < std::chrono::seconds(15));
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
  BOOST_TEST_MESSAGE("the session ran on the restarted task "
                     << std::chrono::duration<double>(Clock::now() - restarted).count()
                     << " s after it listened again");
  // A master that missed the restart is refused, each request naming the
  // task and both incarnations.
  std::vector<actors::ProbeAnswer> answers;
  BOOST_TEST_REQUIRE(actors::ProbeIncarnation("127.0.0.1", port, old_incarnation, &answers).ok());
  BOOST_TEST(answers.size() == 3u);
  for (const actors::ProbeAnswer& answer : answers) {
    BOOST_TEST(answer.status.code() == Code::ABORTED, answer.what << ": " << answer.status);
    BOOST_TEST(answer.status.message().find("device incarnation changed: " + kTask) !=
                   std::string::npos,
               answer.status);
    BOOST_TEST(answer.status.message().find(std::to_string(old_incarnation)) != std::string::npos,
               answer.status);
  }
  // A new session sees the new incarnation and runs too.
  std::unique_ptr<Session> after;
  s = Session::Create(Options({second.address()}), &after);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(after->ListDevices().back().name == kRemoteCpu);
  BOOST_TEST(after->ListDevices().back().incarnation != old_incarnation);
  BOOST_TEST_REQUIRE(after->Extend(StuckGraph()).ok());
  s = after->Run({}, {"remote"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
}

BOOST_AUTO_TEST_CASE(the_startup_rendezvous_waits_for_a_late_task) {
  uint16_t port = 0;
  {
    ServerProcess probe;  // find a free port
    BOOST_TEST_REQUIRE(probe.Start({}).ok());
    port = probe.port();
    probe.Stop(SIGTERM);
  }
  SessionOptions options = Options({"127.0.0.1:" + std::to_string(port)});
  options.setup_timeout_ms = 20000;
  auto creating = std::async(std::launch::async, [&] {
    std::unique_ptr<Session> session;
    Status s = Session::Create(options, &session);
    return std::make_pair(s, std::move(session));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  ServerProcess late;
  BOOST_TEST_REQUIRE(late.Start({"--task", "1", "--port", std::to_string(port)}).ok());
  BOOST_TEST_REQUIRE((creating.wait_for(std::chrono::seconds(25)) == std::future_status::ready));
  auto [s, session] = creating.get();
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(session->ListDevices().back().name == kRemoteCpu);
}

BOOST_AUTO_TEST_CASE(heartbeat_options_are_checked) {
  SessionOptions options;
  options.heartbeat_interval_ms = 500;
  options.worker_lost_after_ms = 600;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("worker_lost_after_ms") != std::string::npos, s);
}

}  // namespace
}  // namespace af
