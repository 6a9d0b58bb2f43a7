// Only cluster members get in: a server with `--secret_file` speaks CAF
// only over mutual TLS under the CA every holder of the secret derives
// (actors/transport/cluster_tls.h), and then admits a process only after it proved
// the secret (HMAC challenge, both ways), and the session's peer workers
// through its master's word. A session without the secret or with another
// one fails the TLS handshake; a member that skips the handshake is
// refused everything, and the server logs the refusal.
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "actors/transport/wire_probe.h"
#include "core/cluster_secret.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::Address;
using testing::FreePorts;
using testing::GraphBuilder;
using testing::LocalCpu;
using testing::ServerProcess;

// The environment must not decide for a test what its processes know.
struct NoSecretInEnvironment {
  NoSecretInEnvironment() { unsetenv(kSecretFileEnv); }
};

// A fresh secret file, as `actorflow cluster` writes one.
struct SecretFile {
  testing::TempDir dir{"af_auth"};
  std::string path = dir.path() + "/secret";
  SecretFile() { BOOST_TEST_REQUIRE(WriteNewSecretFile(path).ok()); }
};

std::string WriteFileWithMode(const testing::TempDir& dir, const std::string& name,
                              const std::string& text, mode_t mode) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  BOOST_TEST_REQUIRE(chmod(path.c_str(), mode) == 0);
  return path;
}

SessionOptions ClusterSession(const std::string& spec, const std::string& secret_file) {
  SessionOptions options;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(spec, &options.cluster).ok());
  options.cluster_secret_file = secret_file;
  options.default_timeout_ms = 30000;
  return options;
}

// A server at the one address of `spec`, its task /job:worker/replica:0/task:0.
void StartSingleTask(ServerProcess* server, const std::string& spec,
                     std::vector<std::string> extra) {
  server->any_port = false;
  std::vector<std::string> args = {"--cluster", spec, "--job", "worker", "--task", "0"};
  args.insert(args.end(), extra.begin(), extra.end());
  Status s = server->Start(args);
  BOOST_TEST_REQUIRE(s.ok(), s);
}

// A ps task and a worker task of one spec, both holding `secret`.
struct PsAndWorker {
  std::string spec;
  std::vector<std::string> ps_args;
  ServerProcess ps, worker;

  explicit PsAndWorker(const SecretFile& secret) {
    const std::vector<uint16_t> ports = FreePorts(2);
    BOOST_TEST_REQUIRE(ports.size() == 2u);
    spec = "ps=" + Address(ports[0]) + ";worker=" + Address(ports[1]);
    ps_args = {"--cluster", spec, "--job", "ps", "--task", "0", "--secret_file", secret.path};
    ps.any_port = false;
    Status s = ps.Start(ps_args);
    BOOST_TEST_REQUIRE(s.ok(), s);
    StartSingleTask(&worker, spec, {"--secret_file", secret.path});
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

BOOST_FIXTURE_TEST_SUITE(authentication, NoSecretInEnvironment)

BOOST_AUTO_TEST_CASE(members_with_the_secret_run_a_graph_across_two_servers) {
  SecretFile secret;
  PsAndWorker cluster(secret);
  const std::string& spec = cluster.spec;
  ServerProcess& ps = cluster.ps;
  ServerProcess& worker = cluster.worker;
  BOOST_TEST(ps.output().find("(cluster secret required)") != std::string::npos, ps.output());

  std::unique_ptr<Session> session;
  Status s = Session::Create(ClusterSession(spec, secret.path), &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(session->ListDevices().size() == 3u);
  // a crosses from ps to worker; big crosses ps -> worker -> this process
  // in chunks (over 1 MiB), through both guards.
  std::vector<float> values(512 * 1024);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("w", Tensor::Scalar<float>(2), "/job:ps/task:0");
  b.Op("Mul", "a", {"x", "w"}, DT_FLOAT, "/job:ps/task:0");
  b.Op("Add", "b", {"a", "a"}, DT_FLOAT, "/job:worker/task:0");
  b.Op("Identity", "y", {"b"}, DT_FLOAT, LocalCpu(0));
  b.Const("big", testing::Matrix(512, 1024, values), "/job:ps/task:0");
  b.Op("Identity", "big_on_worker", {"big"}, DT_FLOAT, "/job:worker/task:0");
  b.Op("Identity", "big_here", {"big_on_worker"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  for (int i = 1; i <= 2; ++i) {
    std::vector<Tensor> out;
    s = session->Run({{"x", Tensor::Scalar<float>(static_cast<float>(i))}}, {"y", "big_here"}, {},
                     &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out[0].scalar<float>() == 4.0f * i);
    BOOST_TEST_REQUIRE(out[1].NumElements() == static_cast<int64_t>(values.size()));
    BOOST_TEST(out[1].data<float>()[999] == 999.0f);
    BOOST_TEST(out[1].data<float>()[values.size() - 1] == values.back());
  }
  BOOST_TEST(session->Close().ok());
  ps.Stop(SIGTERM);
  worker.Stop(SIGTERM);
  BOOST_TEST(ps.output().find("refused") == std::string::npos, ps.output());
  BOOST_TEST(worker.output().find("refused") == std::string::npos, worker.output());
}

BOOST_AUTO_TEST_CASE(a_session_without_the_secret_is_refused_naming_the_task) {
  SecretFile secret;
  const std::vector<uint16_t> ports = FreePorts(1);
  BOOST_TEST_REQUIRE(ports.size() == 1u);
  const std::string spec = "worker=" + Address(ports[0]);
  ServerProcess server;
  StartSingleTask(&server, spec, {"--secret_file", secret.path});
  std::unique_ptr<Session> session;
  Status s = Session::Create(ClusterSession(spec, ""), &session);
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  BOOST_TEST(s.message() == "/job:worker/replica:0/task:0 at " + Address(ports[0]) +
                                " requires the cluster secret (give --secret_file or set "
                                "ACTORFLOW_SECRET_FILE)",
             s);
  // Refused in the TLS handshake, before CAF parsed a byte: the server
  // never saw a node, a request or a message to log.
  server.Stop(SIGTERM);
  BOOST_TEST(server.output().find("session") == std::string::npos, server.output());
}

BOOST_AUTO_TEST_CASE(a_session_with_another_secret_is_refused) {
  SecretFile secret, other;
  const std::vector<uint16_t> ports = FreePorts(1);
  BOOST_TEST_REQUIRE(ports.size() == 1u);
  const std::string spec = "worker=" + Address(ports[0]);
  ServerProcess server;
  StartSingleTask(&server, spec, {"--secret_file", secret.path});
  std::unique_ptr<Session> session;
  Status s = Session::Create(ClusterSession(spec, other.path), &session);
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  BOOST_TEST(s.message().find("/job:worker/replica:0/task:0 at " + Address(ports[0])) !=
                 std::string::npos,
             s);
  BOOST_TEST(s.message().find("refused this process's TLS handshake") != std::string::npos, s);
  BOOST_TEST(s.message().find("holds another one") != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(a_server_without_the_secret_is_refused_by_the_client) {
  SecretFile secret;
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({}).ok());
  BOOST_TEST(server.output().find("without authentication (loopback only; give --secret_file "
                                  "to listen on other addresses)") != std::string::npos,
             server.output());
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.cluster_secret_file = secret.path;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  BOOST_TEST(s.message().find("the server at " + server.address() +
                              " refused this process's TLS handshake: it runs without a "
                              "cluster secret") != std::string::npos,
             s);
}

BOOST_AUTO_TEST_CASE(a_peer_that_skips_the_handshake_is_refused_everything) {
  SecretFile secret;
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({"--task", "1", "--secret_file", secret.path}).ok());
  std::vector<actors::ProbeAnswer> answers;
  // A plain CAF peer does not get past TLS.
  Status s = actors::ProbeWithoutHandshake("127.0.0.1", server.port(), &answers);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  BOOST_TEST(s.message().find("requires the cluster secret") != std::string::npos, s);
  BOOST_TEST(answers.empty());
  // A process with the secret that skips the handshake is refused all the
  // same: a member must prove it to each server it uses.
  std::string secret_text;
  BOOST_TEST_REQUIRE(ReadSecretFile(secret.path, &secret_text).ok());
  s = actors::ProbeWithoutHandshake("127.0.0.1", server.port(), &answers, secret_text);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(answers.size() == 10u);
  for (const actors::ProbeAnswer& answer : answers) {
    BOOST_TEST_MESSAGE(answer.what << ": " << answer.status);
    BOOST_TEST(answer.status.code() == Code::UNAUTHENTICATED, answer.what << ": " << answer.status);
    BOOST_TEST(answer.status.message().find("not authenticated") != std::string::npos,
               answer.what << ": " << answer.status);
  }
  // The server still serves members; this process proves the secret now.
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.cluster_secret_file = secret.path;
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Op("Neg", "n", {"x"}, DT_FLOAT, "/job:worker/replica:0/task:1/device:CPU:0");
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"n"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == -3.0f);
  BOOST_TEST(session->Close().ok());
  server.Stop(SIGTERM);
  const std::string& log = server.output();
  BOOST_TEST_MESSAGE("the server's log:\n" << log);
  BOOST_TEST(log.find("server: refused TensorPush from node ") != std::string::npos,
             log);
  BOOST_TEST(log.find(": not authenticated (no cluster secret proven)") != std::string::npos,
             log);
  BOOST_TEST(log.find("refused TensorPush from an anonymous sender") != std::string::npos, log);
  // One line per node, however many messages it sent.
  BOOST_TEST(Count(log, "from node ") == 1u, log);
}

BOOST_AUTO_TEST_CASE(without_a_secret_a_server_listens_on_loopback_only) {
  std::string output;
  BOOST_TEST(testing::RunActorflow({"server", "--host", "0.0.0.0", "--port", "0"}, &output) != 0);
  BOOST_TEST(output.find("refusing to listen on 0.0.0.0:0 without a cluster secret") !=
                 std::string::npos,
             output);
  output.clear();
  BOOST_TEST(testing::RunActorflow({"server", "--cluster", "worker=10.255.255.1:2222", "--job",
                                    "worker"},
                                   &output) != 0);
  BOOST_TEST(output.find("refusing to listen on 10.255.255.1:2222") != std::string::npos, output);

  SecretFile secret;
  ServerProcess server;
  Status s = server.Start({"--host", "0.0.0.0", "--secret_file", secret.path});
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(server.output().find("listening on 0.0.0.0:") != std::string::npos, server.output());
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.cluster_secret_file = secret.path;
  std::unique_ptr<Session> session;
  s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(session->ListDevices().size() == 2u);
}

BOOST_AUTO_TEST_CASE(secret_files_others_can_read_or_too_short_are_refused) {
  testing::TempDir dir("af_auth");
  const std::string readable =
      WriteFileWithMode(dir, "readable", std::string(64, 'a') + "\n", 0644);
  std::string output;
  BOOST_TEST(testing::RunActorflow({"server", "--secret_file", readable}, &output) != 0);
  BOOST_TEST(output.find(readable) != std::string::npos, output);
  BOOST_TEST(output.find("chmod 600") != std::string::npos, output);
  SessionOptions options;
  options.remote_workers = {"127.0.0.1:1"};
  options.cluster_secret_file = readable;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("0644") != std::string::npos, s);

  const std::string short_secret = WriteFileWithMode(dir, "short", "hunter2\n", 0600);
  output.clear();
  BOOST_TEST(testing::RunActorflow({"server", "--secret_file", short_secret}, &output) != 0);
  BOOST_TEST(output.find("at least 16") != std::string::npos, output);
  // The environment names the file when no flag does.
  setenv(kSecretFileEnv, short_secret.c_str(), 1);
  output.clear();
  const int code = testing::RunActorflow({"server"}, &output);
  unsetenv(kSecretFileEnv);
  BOOST_TEST(code != 0);
  BOOST_TEST(output.find("ACTORFLOW_SECRET_FILE") != std::string::npos, output);
}

BOOST_AUTO_TEST_CASE(a_servers_master_proves_the_secret_and_a_restarted_task_rejoins_with_it) {
  SecretFile secret;
  PsAndWorker cluster(secret);
  // The master runs in the worker's server; the client proves the secret
  // to it, and it proves the secret to the ps.
  SessionOptions options;
  options.target = "af://" + cluster.worker.address();
  options.cluster_secret_file = secret.path;
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(session->ListDevices().size() == 2u);
  GraphBuilder b;
  b.Const("w", Tensor::Scalar<float>(2), "/job:ps/task:0");
  b.Op("Add", "y", {"w", "w"}, DT_FLOAT, "/job:worker/task:0");
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  s = session->Run({}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
  // Without the secret, the same target refuses the client.
  options.cluster_secret_file.clear();
  std::unique_ptr<Session> stranger;
  s = Session::Create(options, &stranger);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  // The ps restarts; the server's master proves the secret to the new
  // process and the session runs again.
  cluster.ps.Stop(SIGKILL);
  ServerProcess restarted;
  restarted.any_port = false;
  BOOST_TEST_REQUIRE(restarted.Start(cluster.ps_args).ok());
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  do {
    s = session->Run({}, {"y"}, {}, &out);
    if (s.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < until);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
  BOOST_TEST(restarted.output().find("refused") == std::string::npos, restarted.output());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
