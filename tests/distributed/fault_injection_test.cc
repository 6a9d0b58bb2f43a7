// Injected stragglers and message faults across processes (issue 11 item
// 5; core/fault_injection/): a server whose steps are delayed still computes
// the right results, only later; one that drops every tensor it sends fails
// the step at its deadline instead of hanging; duplicated tensors are
// ignored by the receiver. Times are asserted as lower bounds only.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <future>

#include <boost/test/unit_test.hpp>

#include "core/fault_injection/fault_injector.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/remote_session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using testing::GraphBuilder;
using testing::LocalCpu;
using testing::Matrix;
using testing::ConnectTo;
using testing::ServerProcess;

const std::string kTask = "/job:worker/replica:0/task:1";
const std::string kRemoteCpu = kTask + "/device:CPU:0";
// Above the chunk threshold (1 MiB): crosses on the data plane.
constexpr int64_t kLargeElements = 300000;

// x (local) -> m = x * w (remote) -> y = m + x (local); z = Identity(m)
// (remote, fetched from the server's answer, so no tensor crosses for it
// from the server to this process); big (remote) -> big_here (local).
tensorflow::GraphDef SplitGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("w", Matrix(2, 2, {1, 2, 3, 4}), kRemoteCpu);
  b.Op("MatMul", "m", {"x", "w"}, DT_FLOAT, kRemoteCpu);
  b.Op("Add", "y", {"m", "x"}, DT_FLOAT, LocalCpu(0));
  b.Op("Identity", "z", {"m"}, DT_FLOAT, kRemoteCpu);
  std::vector<float> ramp(kLargeElements);
  for (int64_t i = 0; i < kLargeElements; ++i) ramp[i] = static_cast<float>(i);
  b.Const("big", Tensor::FromVector<float>(ramp, TensorShape{kLargeElements}), kRemoteCpu);
  b.Op("Identity", "big_here", {"big"}, DT_FLOAT, LocalCpu(0));
  return b.graph();
}

// Runs y and z for x = [x0, -1] and checks them; returns the step's seconds.
double RunAndCheck(Session* session, float x0) {
  const auto start = Clock::now();
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Matrix(1, 2, {x0, -1})}}, {"y", "z"}, {}, &out);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  // m = [x0 - 3, 2 x0 - 4]
  BOOST_TEST(out[1].data<float>()[0] == x0 - 3);
  BOOST_TEST(out[1].data<float>()[1] == 2 * x0 - 4);
  BOOST_TEST(out[0].data<float>()[0] == 2 * x0 - 3);
  BOOST_TEST(out[0].data<float>()[1] == 2 * x0 - 5);
  return seconds;
}

void CheckLargeTensor(Session* session) {
  std::vector<Tensor> out;
  Status s = session->Run({}, {"big_here"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out[0].NumElements() == kLargeElements);
  bool same = true;
  for (int64_t i = 0; i < kLargeElements; ++i) same = same && out[0].data<float>()[i] == i;
  BOOST_TEST(same);
}

// Sets $ACTORFLOW_FAULTS for one test (this process and the servers it
// starts read it); restores the variable's absence afterwards.
class ScopedFaultsEnvironment {
 public:
  explicit ScopedFaultsEnvironment(const char* spec) {
    setenv(faults::kFaultsEnvironmentVariable, spec, 1);
  }
  ~ScopedFaultsEnvironment() { unsetenv(faults::kFaultsEnvironmentVariable); }
};

BOOST_AUTO_TEST_CASE(a_server_with_delayed_steps_still_computes_correct_results) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--faults", "compute=const:50ms;seed=3"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(server.WaitForOutput("fault injection on " + kTask + ": compute=const:50ms;"
                                  "compute_at=start;transport=none;drop=0;dup=0;seed=3",
                                  std::chrono::seconds(10)),
             server.output());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  for (int i = 0; i < 5; ++i) {
    const double seconds = RunAndCheck(session.get(), 1.0f + i);
    // The server's partition started 50 ms late and this step waited for it.
    BOOST_TEST(seconds >= 0.050, "step " << i << " took " << seconds << " s");
  }
  BOOST_TEST(session->Close().ok());
  // The counts, as the worker logs them when it stops.
  server.Stop(SIGTERM);
  BOOST_TEST(server.output().find("faults injected on " + kTask + ": 5 of 5 steps delayed (250.0 ms") !=
                 std::string::npos,
             server.output());
}

BOOST_AUTO_TEST_CASE(a_delayed_answer_delays_the_step_too) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--faults", "compute=const:50ms;compute_at=end"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  for (int i = 0; i < 3; ++i) {
    const double seconds = RunAndCheck(session.get(), 2.0f + i);
    BOOST_TEST(seconds >= 0.050, "step " << i << " took " << seconds << " s");
  }
}

BOOST_AUTO_TEST_CASE(dropping_every_tensor_fails_the_step_at_its_deadline_without_hanging) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--faults", "drop=1.0"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  RunOptions options;
  options.timeout_ms = 2000;
  const auto start = Clock::now();
  auto running = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run(options, {{"x", Matrix(1, 2, {1, -1})}}, {"y"}, {}, &out, nullptr);
  });
  BOOST_TEST_REQUIRE((running.wait_for(std::chrono::seconds(20)) == std::future_status::ready),
                     "the step hung after its tensor was dropped");
  s = running.get();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  BOOST_TEST_MESSAGE("with drop=1.0 the step ended after " << seconds << " s: " << s);
  // As a message lost on the network: the Recv waits until the step's
  // deadline, which aborts the step everywhere.
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  BOOST_TEST(seconds >= 2.0);
  BOOST_TEST(server.WaitForOutput("dropped tensor '", std::chrono::seconds(5)), server.output());
  // The partitioner names the edge's tensor edge_<id>_m.
  BOOST_TEST(server.output().find("_m;") != std::string::npos, server.output());
  // Steps that need nothing from the server's sends still run: x crosses to
  // the server (this process drops nothing) and z comes back in its answer.
  std::vector<Tensor> out;
  s = session->Run({{"x", Matrix(1, 2, {1, -1})}}, {"z"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].data<float>()[0] == -2.0f);
}

BOOST_AUTO_TEST_CASE(duplicated_and_delayed_tensors_are_harmless) {
  // This process duplicates what it sends (task=/job:localhost selects it
  // alone); the server duplicates and delays its own (its flag wins over
  // the variable it inherited).
  ScopedFaultsEnvironment env("task=/job:localhost;dup=1;seed=5");
  ServerProcess server;
  Status s =
      server.Start({"--task", "1", "--faults", "dup=1;transport=const:20ms;seed=5"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  for (int i = 0; i < 5; ++i) {
    const double seconds = RunAndCheck(session.get(), 3.0f + i);
    // m reached this process 20 ms after the server sent it.
    BOOST_TEST(seconds >= 0.020, "step " << i << " took " << seconds << " s");
  }
  // Streamed (large) tensors are delayed but never duplicated: intact.
  CheckLargeTensor(session.get());
  // The server received every x twice and kept the first.
  BOOST_TEST(server.WaitForOutput("duplicated tensor ignored", std::chrono::seconds(5)),
             server.output());
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(a_tensor_still_in_its_delay_does_not_hold_a_stopping_server) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--faults", "transport=const:3600s"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
  RunOptions options;
  options.timeout_ms = 1000;
  std::vector<Tensor> out;
  s = session->Run(options, {{"x", Matrix(1, 2, {1, -1})}}, {"y"}, {}, &out, nullptr);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  BOOST_TEST(session->Close().ok());
  // m waits an hour on the server's delay line; SIGTERM still ends the
  // server at once (the line stops with its worker), with exit code 0.
  const int status = server.Stop(SIGTERM, std::chrono::seconds(8));
  BOOST_TEST(WIFEXITED(status), server.output());
  BOOST_TEST(WEXITSTATUS(status) == 0, server.output());
}

BOOST_AUTO_TEST_CASE(a_malformed_spec_stops_the_server_naming_the_field) {
  std::string output;
  const int code =
      testing::RunActorflow({"server", "--port", "0", "--faults", "compute=expo:20ms"}, &output);
  BOOST_TEST(code != 0);
  BOOST_TEST(output.find("INVALID_ARGUMENT") != std::string::npos, output);
  BOOST_TEST(output.find("--faults: fault spec: field 'compute': unknown distribution 'expo'") !=
                 std::string::npos,
             output);
}

}  // namespace
}  // namespace af
