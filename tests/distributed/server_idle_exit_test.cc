// `actorflow server --idle_exit_secs S`: a ps task that ends with its
// workers, so that a Slurm job step or a Kubernetes Job completes. It must
// not stop before any session came, must not stop while one is open, and
// must exit 0 once the last one closed and S seconds passed.
#include <signal.h>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "tests/distributed/remote_session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::ServerProcess;
constexpr char kStopped[] = "none has been open for";
constexpr char kServerCpu[] = "/job:worker/replica:0/task:1/device:CPU:0";

BOOST_AUTO_TEST_SUITE(server_idle_exit)

BOOST_AUTO_TEST_CASE(a_server_stops_by_itself_only_after_its_sessions_are_over) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1", "--idle_exit_secs", "0.5"}).ok(), server.output());
  // No session yet: a ps task waits for its workers however long they take.
  BOOST_TEST(!server.WaitForOutput(kStopped, std::chrono::milliseconds(1500)), server.output());

  auto session = testing::ConnectTo(server);
  testing::GraphBuilder b;
  b.Placeholder("a", DT_FLOAT, testing::LocalCpu(0));
  b.Op("Square", "y", {"a"}, DT_FLOAT, kServerCpu);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"a", testing::Matrix(1, 1, {3})}}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].data<float>()[0] == 9.0f);
  // Open, and idle between steps for longer than S: still serving.
  BOOST_TEST(!server.WaitForOutput(kStopped, std::chrono::milliseconds(1500)), server.output());
  s = session->Run({{"a", testing::Matrix(1, 1, {4})}}, {"y"}, {}, &out);
  BOOST_TEST(s.ok(), s);

  BOOST_TEST_REQUIRE(session->Close().ok());
  BOOST_TEST(server.WaitForOutput(kStopped, std::chrono::seconds(20)), server.output());
  const int status = server.Stop(0, std::chrono::seconds(10));  // no signal: it exits itself
  BOOST_TEST(WIFEXITED(status), server.output());
  BOOST_TEST(WEXITSTATUS(status) == 0, server.output());
}

BOOST_AUTO_TEST_CASE(a_bad_idle_exit_value_is_a_usage_error) {
  std::string output;
  const int code = testing::RunActorflow({"server", "--idle_exit_secs", "-1"}, &output);
  BOOST_TEST(code != 0, output);
  BOOST_TEST(output.find("--idle_exit_secs") != std::string::npos, output);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
