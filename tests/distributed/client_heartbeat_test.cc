// Clients heartbeat their af:// master sessions (issue 28): a client
// process that stops (SIGSTOP: its connection stays open, so nothing but
// the silence tells) has its session closed by the server after
// --client_timeout_secs, which the server logs and counts, and its blocked
// step is aborted; a client that is merely idle, or waits on a long step,
// keeps its session, since its heartbeats go on.
#include <signal.h>

#include <fstream>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "client/session.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/remote_session_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::ServerProcess;
constexpr char kClosed[] = "closing an af:// session: its client sent no heartbeat";

// A step that blocks: a dequeue from a queue nobody fills.
constexpr char kBlockingGraph[] = R"(
node { name: "q" op: "FIFOQueueV2"
  attr { key: "component_types" value { list { type: DT_FLOAT } } }
  attr { key: "capacity" value { i: -1 } } }
node { name: "d" op: "QueueDequeueV2" input: "q"
  attr { key: "component_types" value { list { type: DT_FLOAT } } }
  attr { key: "timeout_ms" value { i: -1 } } }
)";

// An af:// session on `server` with one op on the server's CPU: 2 squared.
std::unique_ptr<Session> SquareSession(const ServerProcess& server) {
  std::unique_ptr<Session> session = testing::ConnectThroughMaster(server);
  testing::GraphBuilder b;
  b.Const("two", Tensor::Scalar<float>(2), "/job:worker/replica:0/task:0/device:CPU:0");
  b.Op("Square", "four", {"two"}, DT_FLOAT, "/job:worker/replica:0/task:0/device:CPU:0");
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  return session;
}

void RunsFour(Session& session) {
  std::vector<Tensor> out;
  Status s = session.Run({}, {"four"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
}

BOOST_AUTO_TEST_SUITE(client_heartbeat)

BOOST_AUTO_TEST_CASE(a_stopped_client_loses_its_session_and_the_server_says_so) {
  ServerProcess server;
  Status s = server.Start({"--client_timeout_secs", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s);
  testing::TempDir dir("af_heartbeat");
  const std::string graph = dir.path() + "/blocking.pbtxt";
  std::ofstream(graph) << kBlockingGraph;
  // The client blocks in its step for 2 s (heartbeating: nothing happens),
  // is stopped for 4 s (its session goes after ~1 s), then killed.
  int code = 0;
  const std::string client =
      testing::Capture("bash -c '" + std::string(AF_ACTORFLOW_BIN) + " run --graph " + graph +
                           " --fetch d --target af://" + server.address() +
                           " & pid=$!; sleep 2; kill -STOP $pid; sleep 4; kill -9 $pid; "
                           "kill -CONT $pid; wait $pid'",
                       &code);
  BOOST_TEST_REQUIRE(server.WaitForOutput(kClosed, std::chrono::seconds(10)),
                     server.output() << client);
  BOOST_TEST(server.output().find("--client_timeout_secs 1") != std::string::npos,
             server.output());

  // The server is not wedged by it: a new client runs a step.
  auto session = SquareSession(server);
  RunsFour(*session);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(an_idle_client_keeps_its_session_while_it_heartbeats) {
  ServerProcess server;
  Status s = server.Start({"--client_timeout_secs", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s);
  auto session = SquareSession(server);
  // Idle for three timeouts.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  RunsFour(*session);
  BOOST_TEST(!server.WaitForOutput(kClosed, std::chrono::milliseconds(500)), server.output());
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
