// A cluster that grows past its spec (issue 28, actors/master/
// cluster_membership.h): `actorflow server --join af://H:P --port Q` gets
// the next index of its job from a running server, which tells the other
// tasks; an af:// session opened afterwards on another task of the cluster
// sees the new task's devices and runs ops there.
#include <signal.h>

#include <boost/test/unit_test.hpp>

#include "client/session.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::Address;
using testing::FreePorts;
using testing::ServerProcess;

// Whether a session through `target`'s master lists a device of `task`.
bool SessionSees(const std::string& target, const std::string& task) {
  SessionOptions options;
  options.target = "af://" + target;
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  if (!Session::Create(options, &session).ok()) return false;
  bool seen = false;
  for (const DeviceAttributes& d : session->ListDevices()) seen = seen || d.name.rfind(task, 0) == 0;
  (void)session->Close();
  return seen;
}

BOOST_AUTO_TEST_SUITE(cluster_join)

BOOST_AUTO_TEST_CASE(a_task_beyond_the_spec_joins_and_every_task_learns_of_it) {
  const std::vector<uint16_t> ports = FreePorts(4);
  BOOST_TEST_REQUIRE(ports.size() == 4u);
  const std::string spec = "ps=" + Address(ports[0]) + ";worker=" + Address(ports[1]);
  ServerProcess ps, worker, joiner, second;
  ps.any_port = worker.any_port = joiner.any_port = second.any_port = false;
  BOOST_TEST_REQUIRE(ps.Start({"--cluster", spec, "--job", "ps", "--task", "0"}).ok());
  BOOST_TEST_REQUIRE(worker.Start({"--cluster", spec, "--job", "worker", "--task", "0"}).ok());

  Status s = joiner.Start({"--join", "af://" + Address(ports[1]), "--port",
                           std::to_string(ports[2])});
  BOOST_TEST_REQUIRE(s.ok(), s << joiner.output());
  BOOST_TEST(joiner.output().find("joined the cluster of af://" + Address(ports[1]) +
                                  " as /job:worker/replica:0/task:1 (3 tasks)") !=
                 std::string::npos,
             joiner.output());
  BOOST_TEST(joiner.output().find("device /job:worker/replica:0/task:1/device:CPU:0") !=
                 std::string::npos,
             joiner.output());
  // A ps task joins through the ps: the next index of its own job.
  s = second.Start({"--join", "af://" + Address(ports[0]), "--job", "ps", "--port",
                    std::to_string(ports[3])});
  BOOST_TEST_REQUIRE(s.ok(), s << second.output());
  BOOST_TEST(second.output().find("as /job:ps/replica:0/task:1 (4 tasks)") != std::string::npos,
             second.output());

  // The ps task heard of the worker that joined through worker 0, and
  // worker 0 of the ps task that joined through the ps (told on a thread
  // of their own: a moment after the answer).
  bool ps_knows = false, worker_knows = false;
  for (int attempt = 0; attempt < 50 && !(ps_knows && worker_knows); ++attempt) {
    ps_knows = ps_knows || SessionSees(Address(ports[0]), "/job:worker/replica:0/task:1");
    worker_knows = worker_knows || SessionSees(Address(ports[1]), "/job:ps/replica:0/task:1");
  }
  BOOST_TEST(ps_knows, ps.output());
  BOOST_TEST(worker_knows, worker.output());

  // A step through the ps task's master computes on the joined worker.
  SessionOptions options;
  options.target = "af://" + Address(ports[0]);
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(options, &session).ok());
  testing::GraphBuilder b;
  const std::string joined = "/job:worker/replica:0/task:1/device:CPU:0";
  b.Const("three", Tensor::Scalar<float>(3), joined);
  b.Op("Square", "nine", {"three"}, DT_FLOAT, joined);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  s = session->Run({}, {"nine"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 9.0f);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(a_join_that_cannot_be_is_refused_naming_why) {
  const std::vector<uint16_t> ports = FreePorts(2);
  BOOST_TEST_REQUIRE(ports.size() == 2u);
  const std::string spec = "worker=" + Address(ports[0]);
  ServerProcess worker;
  worker.any_port = false;
  BOOST_TEST_REQUIRE(worker.Start({"--cluster", spec, "--job", "worker", "--task", "0"}).ok());
  std::string output;
  // No --port: nobody could reach the new task.
  int code = testing::RunActorflow({"server", "--join", "af://" + Address(ports[0])}, &output);
  BOOST_TEST(code != 0, output);
  BOOST_TEST(output.find("--join needs --port") != std::string::npos, output);
  // The server's own address.
  code = testing::RunActorflow({"server", "--join", "af://" + Address(ports[0]), "--port",
                                std::to_string(ports[0])},
                               &output);
  BOOST_TEST(code != 0, output);
  BOOST_TEST(output.find("is this server") != std::string::npos, output);
  // A bad job name.
  code = testing::RunActorflow({"server", "--join", "af://" + Address(ports[0]), "--job",
                                "9lives", "--port", std::to_string(ports[1])},
                               &output);
  BOOST_TEST(code != 0, output);
  BOOST_TEST(output.find("'9lives' is not a job name") != std::string::npos, output);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
