// Sessions whose graph spans this process and an `actorflow server` child:
// tensors cross between the processes through worker push messages, errors
// abort the step on both sides, and a dead server fails steps promptly.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <future>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "tests/distributed/remote_session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::GraphBuilder;
using testing::LocalCpu;
using testing::Matrix;
using testing::ConnectTo;
using testing::ServerProcess;

const std::string kRemoteCpu = "/job:worker/replica:0/task:1/device:CPU:0";

// x (local) -> m = x * w (remote) -> y = m + x (local); z = Identity(m) (remote).
tensorflow::GraphDef SplitGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("w", Matrix(2, 2, {1, 2, 3, 4}), kRemoteCpu);
  b.Op("MatMul", "m", {"x", "w"}, DT_FLOAT, kRemoteCpu);
  b.Op("Add", "y", {"m", "x"}, DT_FLOAT, LocalCpu(0));
  b.Op("Identity", "z", {"m"}, DT_FLOAT, kRemoteCpu);
  return b.graph();
}

BOOST_AUTO_TEST_CASE(session_sees_remote_devices_and_runs_a_split_graph) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--cpus", "1", "--threads", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  {
    auto session = ConnectTo(server);
    const auto& devices = session->ListDevices();
    BOOST_TEST_REQUIRE(devices.size() == 2u);
    BOOST_TEST(devices[0].name == LocalCpu(0));
    BOOST_TEST(devices[1].name == kRemoteCpu);
    BOOST_TEST_REQUIRE(session->Extend(SplitGraph()).ok());
    for (int i = 0; i < 5; ++i) {
      const float x0 = 1.0f + i;
      std::vector<Tensor> out;
      s = session->Run({{"x", Matrix(1, 2, {x0, -1})}}, {"y", "z"}, {}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
      // m = [x0 - 3, 2 x0 - 4]
      BOOST_TEST(out[1].data<float>()[0] == x0 - 3);
      BOOST_TEST(out[1].data<float>()[1] == 2 * x0 - 4);
      BOOST_TEST(out[0].data<float>()[0] == 2 * x0 - 3);
      BOOST_TEST(out[0].data<float>()[1] == 2 * x0 - 5);
    }
    BOOST_TEST(session->Close().ok());
  }
  // A clean stop on SIGTERM: exit code 0.
  const int status = server.Stop(SIGTERM);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, server.output());
}

BOOST_AUTO_TEST_CASE(remote_error_aborts_the_step_and_the_next_run_works) {
  ServerProcess server;
  Status s = server.Start({"--task", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  GraphBuilder b;
  b.Placeholder("a", DT_FLOAT, LocalCpu(0));
  b.Placeholder("b", DT_FLOAT, LocalCpu(0));
  b.Op("MatMul", "m", {"a", "b"}, DT_FLOAT, kRemoteCpu);
  b.Op("Identity", "y", {"m"}, DT_FLOAT, LocalCpu(0));  // waits on the remote result
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  s = session->Run({{"a", Matrix(1, 3, {1, 2, 3})}, {"b", Matrix(2, 1, {1, 2})}}, {"y"}, {},
                   &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  s = session->Run({{"a", Matrix(1, 2, {1, 2})}, {"b", Matrix(2, 1, {3, 4})}}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 11.0f);
}

BOOST_AUTO_TEST_CASE(killed_server_fails_running_and_later_steps_promptly) {
  ServerProcess server;
  Status s = server.Start({"--task", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  GraphBuilder b;
  // A Recv on the server that nobody feeds: the step waits on the server.
  tensorflow::NodeDef* recv = b.Add("stuck", "_Recv", {}, kRemoteCpu);
  auto& attr = *recv->mutable_attr();
  attr["tensor_type"].set_type(tensorflow::DT_FLOAT);
  attr["tensor_name"].set_s("nobody_sends_this");
  attr["send_device"].set_s(kRemoteCpu);
  attr["send_device_incarnation"].set_i(1);
  attr["recv_device"].set_s(kRemoteCpu);
  b.Op("Identity", "y", {"stuck"}, DT_FLOAT, LocalCpu(0));
  b.Const("c", Tensor::Scalar<float>(2), kRemoteCpu);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());

  auto running = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({}, {"y"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto killed_at = std::chrono::steady_clock::now();
  server.Stop(SIGKILL);
  BOOST_TEST_REQUIRE((running.wait_for(std::chrono::seconds(20)) == std::future_status::ready));
  s = running.get();
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s.ToString());
  // Well before the step's 30 s deadline.
  BOOST_TEST((std::chrono::steady_clock::now() - killed_at < std::chrono::seconds(15)));

  std::vector<Tensor> out;
  RunOptions quick;
  quick.timeout_ms = 5000;
  s = session->Run(quick, {}, {"c"}, {}, &out);
  BOOST_TEST(!s.ok());
  BOOST_TEST((s.code() == Code::UNAVAILABLE || s.code() == Code::INVALID_ARGUMENT), s.ToString());
}

BOOST_AUTO_TEST_CASE(strings_and_large_tensors_cross_processes) {
  ServerProcess server;
  Status s = server.Start({"--task", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  auto session = ConnectTo(server);
  GraphBuilder b;
  b.Placeholder("words", DT_STRING, LocalCpu(0));
  b.Op("Identity", "words_there", {"words"}, DT_STRING, kRemoteCpu);
  b.Op("Identity", "words_back", {"words_there"}, DT_STRING, LocalCpu(0));
  b.Placeholder("big", DT_FLOAT, LocalCpu(0));
  b.Op("Identity", "big_there", {"big"}, DT_FLOAT, kRemoteCpu);
  b.Op("Add", "big_sum", {"big_there", "big_there"}, DT_FLOAT, kRemoteCpu);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());

  Tensor words = Tensor::FromVector<std::string>({"", "actor", std::string(100000, 'q')});
  std::vector<Tensor> out;
  s = session->Run({{"words", words}}, {"words_back"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out[0].NumElements() == 3);
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(out[0].data<std::string>()[i] == words.data<std::string>()[i]);
  }

  constexpr int64_t kElements = 1 << 20;  // 4 MiB each way
  Tensor big(DT_FLOAT, TensorShape{kElements});
  for (int64_t i = 0; i < kElements; ++i) big.data<float>()[i] = static_cast<float>(i % 1000);
  s = session->Run({{"big", big}}, {"big_sum"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out[0].NumElements() == kElements);
  int64_t wrong = 0;
  for (int64_t i = 0; i < kElements; ++i) {
    if (out[0].data<float>()[i] != 2.0f * static_cast<float>(i % 1000)) ++wrong;
  }
  BOOST_TEST(wrong == 0);
}

BOOST_AUTO_TEST_CASE(two_servers_exchange_tensors_through_the_session) {
  ServerProcess one, two;
  BOOST_TEST_REQUIRE(one.Start({"--task", "1"}).ok());
  BOOST_TEST_REQUIRE(two.Start({"--task", "2"}).ok());
  const std::string task2 = "/job:worker/replica:0/task:2/device:CPU:0";
  SessionOptions options;
  options.remote_workers = {one.address(), two.address()};
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(session->ListDevices().size() == 3u);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("one", Tensor::Scalar<float>(1), kRemoteCpu);
  b.Op("Add", "a", {"x", "one"}, DT_FLOAT, kRemoteCpu);   // task 1
  b.Op("Add", "b", {"a", "a"}, DT_FLOAT, task2);          // task 1 -> task 2
  b.Op("Add", "c", {"b", "a"}, DT_FLOAT, kRemoteCpu);     // task 2 -> task 1
  b.Op("Identity", "y", {"c"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    s = session->Run({{"x", Tensor::Scalar<float>(static_cast<float>(i))}}, {"y", "b"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    const float a = static_cast<float>(i) + 1;
    BOOST_TEST(out[0].scalar<float>() == 3 * a);
    BOOST_TEST(out[1].scalar<float>() == 2 * a);
  }
}

BOOST_AUTO_TEST_CASE(unreachable_worker_fails_session_creation) {
  // Find a port nobody listens on: start a server, note its port, stop it.
  uint16_t port = 0;
  {
    ServerProcess server;
    BOOST_TEST_REQUIRE(server.Start({}).ok());
    port = server.port();
    server.Stop(SIGTERM);
  }
  SessionOptions options;
  options.remote_workers = {"127.0.0.1:" + std::to_string(port)};
  options.setup_timeout_ms = 1000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s.ToString());
  // The rendezvous names what it waited for, where, and the last error.
  BOOST_TEST(s.message().find("waiting for worker at 127.0.0.1:" + std::to_string(port) + ": ") !=
                 std::string::npos,
             s.ToString());
}

BOOST_AUTO_TEST_CASE(server_rejects_bad_flags) {
  std::string output;
  BOOST_TEST(testing::RunActorflow({"server", "--cpus", "0"}, &output) == 2);
  BOOST_TEST(output.find("--cpus") != std::string::npos, output);
  output.clear();
  BOOST_TEST(testing::RunActorflow({"server", "--bogus"}, &output) == 2);
  BOOST_TEST(output.find("--bogus") != std::string::npos, output);
}

}  // namespace
}  // namespace af
