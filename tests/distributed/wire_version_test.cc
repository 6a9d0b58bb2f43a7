// Processes of one cluster speak one wire protocol: a server, a client or
// a peer server of another version is refused at the first exchange with
// an error naming both sides' versions, instead of failing to parse a
// message or hanging. The mismatched process is the same build claiming
// another version (ACTORFLOW_WIRE_VERSION_FOR_TESTS, or
// SetWireProtocolVersionForTests in this process).
#include <stdlib.h>

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "actors/transport/wire_probe.h"
#include "actors/transport/wire_version.h"
#include "client/session.h"
#include "core/cluster_spec.h"
#include "tests/distributed/server_process.h"
#include "tests/test_util.h"

namespace af {
namespace {

using testing::Address;
using testing::FreePorts;
using testing::ServerProcess;

// A version no build speaks.
constexpr uint32_t kOtherVersion = kWireProtocolVersion + 1;

// Starts `server` with `args`; claiming `wire_version` when not 0. The
// variable is set only around the fork: this process keeps its version.
void StartServer(ServerProcess* server, const std::vector<std::string>& args,
                 uint32_t wire_version = 0) {
  if (wire_version != 0) {
    setenv(kWireVersionForTestsEnv, std::to_string(wire_version).c_str(), 1);
  }
  Status s = server->Start(args);
  unsetenv(kWireVersionForTestsEnv);
  BOOST_TEST_REQUIRE(s.ok(), s);
}

// This process claims another version for the test's lifetime.
struct ClaimVersion {
  explicit ClaimVersion(uint32_t version) { SetWireProtocolVersionForTests(version); }
  ~ClaimVersion() { SetWireProtocolVersionForTests(0); }
};

Status OpenSession(SessionOptions options) {
  options.default_timeout_ms = 30000;
  options.setup_timeout_ms = 10000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  if (s.ok()) {
    // Some paths connect on first use.
    s = session->ListDevices().empty() ? errors::Internal("no devices") : Status::OK();
    if (s.ok()) s = session->Close();
  }
  return s;
}

using testing::Contains;

std::string Mismatch(const std::string& peer, uint32_t peer_wire, uint32_t own_wire) {
  return WireMismatchMessage(peer, peer_wire, LibraryVersion(), own_wire, LibraryVersion());
}

BOOST_AUTO_TEST_SUITE(wire_version)

BOOST_AUTO_TEST_CASE(the_refusal_names_both_versions_and_the_fix) {
  BOOST_TEST(WireMismatchMessage("the server at 127.0.0.1:5000", 2, "0.11.0", 3, "0.12.0") ==
             "the server at 127.0.0.1:5000 speaks Actorflow wire protocol 2 (Actorflow 0.11.0); "
             "this process speaks 3 (Actorflow 0.12.0): run the same Actorflow version on every "
             "process of a cluster");
  BOOST_TEST(Contains(WireMismatchMessage("the server at h:1", 0, "", 1, "0.12.0"),
                      "the server at h:1 speaks a wire protocol older than 1"));
  BOOST_TEST(WireProtocolVersion() == kWireProtocolVersion);
}

BOOST_AUTO_TEST_CASE(the_command_line_prints_both_versions) {
  std::string output;
  BOOST_TEST_REQUIRE(testing::RunActorflow({"--version"}, &output) == 0, output);
  BOOST_TEST(Contains(output, LibraryVersion()), output);
  BOOST_TEST(Contains(output, "wire protocol " + std::to_string(kWireProtocolVersion)), output);
}

BOOST_AUTO_TEST_CASE(a_server_of_another_version_refuses_a_session) {
  ServerProcess server;
  StartServer(&server, {}, kOtherVersion);
  BOOST_TEST(Contains(server.output(), "wire protocol " + std::to_string(kOtherVersion)),
             server.output());
  const std::string expected =
      Mismatch("the server at " + server.address(), kOtherVersion, kWireProtocolVersion);
  // Its master (af://) and its worker (a remote worker of this process's
  // master) alike.
  SessionOptions remote_master;
  remote_master.target = "af://" + server.address();
  SessionOptions remote_worker;
  remote_worker.remote_workers = {server.address()};
  for (const SessionOptions& options : {remote_master, remote_worker}) {
    Status s = OpenSession(options);
    BOOST_TEST_MESSAGE(s);
    BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
    BOOST_TEST(Contains(s.message(), expected), s);
  }
  // The server logged the mismatch too.
  BOOST_TEST(server.WaitForOutput("speaks Actorflow wire protocol " +
                                      std::to_string(kWireProtocolVersion),
                                  std::chrono::seconds(10)),
             server.output());
}

BOOST_AUTO_TEST_CASE(a_client_of_another_version_is_refused_by_a_server) {
  ServerProcess server;
  StartServer(&server, {});
  {
    ClaimVersion claim(kOtherVersion);
    SessionOptions options;
    options.target = "af://" + server.address();
    Status s = OpenSession(options);
    BOOST_TEST_MESSAGE(s);
    BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
    BOOST_TEST(Contains(s.message(), Mismatch("the server at " + server.address(),
                                              kWireProtocolVersion, kOtherVersion)),
               s);
  }
  BOOST_TEST(server.WaitForOutput("it speaks Actorflow wire protocol " +
                                      std::to_string(kOtherVersion),
                                  std::chrono::seconds(10)),
             server.output());
  // The same server still serves a client of its own version.
  SessionOptions options;
  options.target = "af://" + server.address();
  Status s = OpenSession(options);
  BOOST_TEST(s.ok(), s);
}

BOOST_AUTO_TEST_CASE(servers_of_different_versions_fail_the_session_between_them) {
  const std::vector<uint16_t> ports = FreePorts(2);
  BOOST_TEST_REQUIRE(ports.size() == 2u);
  const std::string spec = "ps=" + Address(ports[0]) + ";worker=" + Address(ports[1]);
  ServerProcess ps, worker;
  ps.any_port = false;
  worker.any_port = false;
  StartServer(&ps, {"--cluster", spec, "--job", "ps", "--task", "0"}, kOtherVersion);
  StartServer(&worker, {"--cluster", spec, "--job", "worker", "--task", "0"});
  // The worker's master reaches the ps task for the session.
  SessionOptions options;
  options.target = "af://" + worker.address();
  Status s = OpenSession(options);
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
  BOOST_TEST(Contains(s.message(), Mismatch("/job:ps/replica:0/task:0 at " + Address(ports[0]),
                                            kOtherVersion, kWireProtocolVersion)),
             s);
}

BOOST_AUTO_TEST_CASE(a_server_executes_nothing_for_a_peer_that_skipped_the_exchange) {
  ServerProcess server;
  StartServer(&server, {});
  std::vector<actors::ProbeAnswer> answers;
  Status s = actors::ProbeWithoutVersionExchange("127.0.0.1", server.port(), &answers);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(answers.size() == 2u);
  for (const actors::ProbeAnswer& answer : answers) {
    BOOST_TEST_MESSAGE(answer.what << ": " << answer.status);
    BOOST_TEST(answer.status.code() == Code::FAILED_PRECONDITION,
               answer.what << ": " << answer.status);
    BOOST_TEST(Contains(answer.status.message(), "never made the wire-protocol version exchange"),
               answer.what << ": " << answer.status);
  }
}

BOOST_AUTO_TEST_CASE(a_server_older_than_the_exchange_is_refused) {
  const Status s = actors::ConnectToServerOlderThanVersions();
  BOOST_TEST_MESSAGE(s);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
  BOOST_TEST(Contains(s.message(), "speaks a wire protocol older than 1"), s);
  BOOST_TEST(Contains(s.message(), "this process speaks " + std::to_string(kWireProtocolVersion)),
             s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
