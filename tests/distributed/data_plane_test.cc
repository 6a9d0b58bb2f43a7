// Large tensors between processes take the data plane (plain TCP beside
// CAF, actors/worker/data_plane.h): intact in every direction (client to
// server, server to server, server to client), many at once in one step,
// among members of a cluster with a secret, whose listener refuses a
// connection that cannot prove it, to a server on 0.0.0.0 at the address
// the session reached it at, and not at all (a failed step, no hang) when
// the receiver dies mid-frame. The process-wide counters of
// core/net/transfer_counters.h (and a server's farewell line) tell that a
// tensor crossed as a frame rather than in chunks.
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <thread>
#include <cstring>

#include <boost/test/unit_test.hpp>

#include "core/cluster_secret.h"
#include "core/net/data_handshake.h"
#include "core/net/tcp_socket.h"
#include "core/net/tensor_frame.h"
#include "core/net/transfer_counters.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::GraphBuilder;
using testing::LocalCpu;
using testing::ServerProcess;

std::string RemoteCpu(int task) {
  return "/job:worker/replica:0/task:" + std::to_string(task) + "/device:CPU:0";
}

// The environment must not decide for a test what its processes know.
struct CleanEnvironment {
  CleanEnvironment() {
    unsetenv(kSecretFileEnv);
    unsetenv("ACTORFLOW_DATA_PLANE");
  }
};

std::unique_ptr<Session> Connect(const std::vector<std::string>& addresses,
                                 const std::string& secret_file = "") {
  SessionOptions options;
  options.remote_workers = addresses;
  options.cluster_secret_file = secret_file;
  options.default_timeout_ms = 120000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return session;
}

void StartServer(ServerProcess* server, int task, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--task", std::to_string(task)};
  args.insert(args.end(), extra.begin(), extra.end());
  Status s = server->Start(args);
  BOOST_TEST_REQUIRE(s.ok(), s);
}

// "H:P" from the server's "data plane on H:P" line (printed before it is
// ready, so Start has read it).
std::string DataAddress(const ServerProcess& server) {
  const std::string marker = "data plane on ";
  const size_t at = server.output().find(marker);
  BOOST_TEST_REQUIRE(at != std::string::npos, server.output());
  const size_t begin = at + marker.size();
  return server.output().substr(begin, server.output().find('\n', begin) - begin);
}

// What this process's data plane has moved so far.
struct Moved {
  uint64_t sent = net::TransferCounters::Global().bytes_sent.load();
  uint64_t received = net::TransferCounters::Global().bytes_received.load();
  uint64_t fallbacks = net::TransferCounters::Global().fallbacks.load();
  uint64_t SentSince() const { return net::TransferCounters::Global().bytes_sent.load() - sent; }
  uint64_t ReceivedSince() const {
    return net::TransferCounters::Global().bytes_received.load() - received;
  }
  uint64_t FallbacksSince() const {
    return net::TransferCounters::Global().fallbacks.load() - fallbacks;
  }
};

constexpr int64_t k64MiBFloats = (int64_t{64} << 20) / 4;

Tensor Pattern(int64_t elements, float scale) {
  Tensor x(DT_FLOAT, TensorShape{elements});
  float* p = x.data<float>();
  for (int64_t i = 0; i < elements; ++i) p[i] = static_cast<float>(i % 100003) * scale;
  return x;
}

// out[i] == x[i] * factor at the ends, the middle and scattered places.
void CheckScaled(const Tensor& out, const Tensor& x, float factor, const std::string& what) {
  BOOST_TEST_REQUIRE(out.NumElements() == x.NumElements(), what);
  const int64_t n = x.NumElements();
  for (int64_t i : {int64_t{0}, int64_t{1}, n / 3, n / 2, n - 4097, n - 2, n - 1}) {
    BOOST_TEST(out.data<float>()[i] == x.data<float>()[i] * factor, what << " at " << i);
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; i += 4093) wrong += out.data<float>()[i] != x.data<float>()[i] * factor;
  BOOST_TEST(wrong == 0, what);
}

// A secret file as `actorflow cluster` writes one, and its contents.
struct SecretFile {
  testing::TempDir dir{"af_data_plane"};
  std::string path = dir.path() + "/secret";
  std::string secret;
  SecretFile() {
    BOOST_TEST_REQUIRE(WriteNewSecretFile(path).ok());
    BOOST_TEST_REQUIRE(ReadSecretFile(path, &secret).ok());
  }
};

BOOST_FIXTURE_TEST_SUITE(data_plane, CleanEnvironment)

BOOST_AUTO_TEST_CASE(a_64_mib_tensor_crosses_client_to_server_and_back) {
  ServerProcess server;
  StartServer(&server, 1);
  BOOST_TEST(!DataAddress(server).empty());
  auto session = Connect({server.address()});
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("two", Tensor::Scalar<float>(2), RemoteCpu(1));
  b.Op("Mul", "there", {"x", "two"}, DT_FLOAT, RemoteCpu(1));  // client -> server
  b.Op("Neg", "back", {"there"}, DT_FLOAT, LocalCpu(0));        // server -> client
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const Tensor x = Pattern(k64MiBFloats, 0.5f);
  for (int step = 0; step < 2; ++step) {
    const Moved moved;
    std::vector<Tensor> out;
    Status s = session->Run({{"x", x}}, {"back"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    CheckScaled(out[0], x, -2.0f, "step " + std::to_string(step));
    BOOST_TEST(moved.SentSince() == uint64_t{64} << 20);
    BOOST_TEST(moved.ReceivedSince() == uint64_t{64} << 20);
    BOOST_TEST(moved.FallbacksSince() == 0u);
  }
  BOOST_TEST(session->Close().ok());
  server.Stop(SIGTERM);
  BOOST_TEST(server.output().find("the data plane received 2 tensors (134217728 bytes) and "
                                  "sent 2 (134217728 bytes); 0 took the chunk path") !=
                 std::string::npos,
             server.output());
}

BOOST_AUTO_TEST_CASE(a_64_mib_tensor_crosses_server_to_server_to_client) {
  ServerProcess first, second;
  StartServer(&first, 1);
  StartServer(&second, 2);
  auto session = Connect({first.address(), second.address()});
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("three", Tensor::Scalar<float>(3), RemoteCpu(1));
  b.Op("Mul", "on_first", {"x", "three"}, DT_FLOAT, RemoteCpu(1));  // client -> task 1
  b.Op("Neg", "on_second", {"on_first"}, DT_FLOAT, RemoteCpu(2));   // task 1 -> task 2
  b.Op("Identity", "here", {"on_second"}, DT_FLOAT, LocalCpu(0));   // task 2 -> client
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const Tensor x = Pattern(k64MiBFloats, 0.25f);
  const Moved moved;
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"here"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  CheckScaled(out[0], x, -3.0f, "server to server to client");
  BOOST_TEST(moved.FallbacksSince() == 0u);
  BOOST_TEST(session->Close().ok());
  first.Stop(SIGTERM);
  second.Stop(SIGTERM);
  // task 1 got x from the client and sent on_first to task 2, which sent
  // on_second here.
  BOOST_TEST(first.output().find("received 1 tensors (67108864 bytes) and sent 1 (67108864 "
                                 "bytes)") != std::string::npos,
             first.output());
  BOOST_TEST(second.output().find("received 1 tensors (67108864 bytes) and sent 1 (67108864 "
                                  "bytes)") != std::string::npos,
             second.output());
}

BOOST_AUTO_TEST_CASE(eight_large_transfers_each_way_in_one_step) {
  ServerProcess server;
  StartServer(&server, 1);
  auto session = Connect({server.address()});
  constexpr int kTransfers = 8;
  constexpr int64_t k4MiBFloats = (int64_t{4} << 20) / 4;
  GraphBuilder b;
  std::vector<std::string> fetches;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (int i = 0; i < kTransfers; ++i) {
    const std::string n = std::to_string(i);
    b.Placeholder("x" + n, DT_FLOAT, LocalCpu(0));
    b.Const("c" + n, Tensor::Scalar<float>(static_cast<float>(i + 1)), RemoteCpu(1));
    b.Op("Mul", "there" + n, {"x" + n, "c" + n}, DT_FLOAT, RemoteCpu(1));
    b.Op("Identity", "back" + n, {"there" + n}, DT_FLOAT, LocalCpu(0));
    fetches.push_back("back" + n);
    feeds.emplace_back("x" + n, Pattern(k4MiBFloats, 1.0f / static_cast<float>(i + 1)));
  }
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  for (int step = 0; step < 3; ++step) {
    const Moved moved;
    std::vector<Tensor> out;
    Status s = session->Run(feeds, fetches, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    for (int i = 0; i < kTransfers; ++i) {
      CheckScaled(out[i], feeds[i].second, static_cast<float>(i + 1),
                  "transfer " + std::to_string(i) + " of step " + std::to_string(step));
    }
    BOOST_TEST(moved.SentSince() == uint64_t{kTransfers} * (uint64_t{4} << 20));
    BOOST_TEST(moved.ReceivedSince() == uint64_t{kTransfers} * (uint64_t{4} << 20));
  }
  BOOST_TEST(session->Close().ok());
}

// `floats` cross to a server with a secret and back, over the data plane
// both ways.
void RoundTripWithSecret(int64_t floats, const std::string& what) {
  SecretFile secret;
  ServerProcess server;
  StartServer(&server, 1, {"--secret_file", secret.path});
  auto session = Connect({server.address()}, secret.path);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Op("Neg", "there", {"x"}, DT_FLOAT, RemoteCpu(1));
  b.Op("Neg", "back", {"there"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const Tensor x = Pattern(floats, 1.5f);
  const Moved moved;
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"back"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  CheckScaled(out[0], x, 1.0f, what);
  BOOST_TEST(moved.SentSince() == static_cast<uint64_t>(floats) * 4);
  BOOST_TEST(moved.ReceivedSince() == static_cast<uint64_t>(floats) * 4);
  BOOST_TEST(moved.FallbacksSince() == 0u);
  BOOST_TEST(session->Close().ok());
  server.Stop(SIGTERM);
  BOOST_TEST(server.output().find("refused") == std::string::npos, server.output());
}

BOOST_AUTO_TEST_CASE(members_with_a_secret_use_the_data_plane) {
  RoundTripWithSecret(k64MiBFloats, "with a secret");
}

// ACTORFLOW_DATA_PLANE_ENCRYPTION=always seals the frames even on loopback
// (AES-128-OCB records, core/net/sealed_stream.h): the tensors arrive
// intact both ways, still over the data plane.
BOOST_AUTO_TEST_CASE(members_with_a_secret_can_encrypt_the_data_plane) {
  // This process and the servers it starts; unset however the test ends.
  struct EncryptAlways {
    EncryptAlways() { setenv("ACTORFLOW_DATA_PLANE_ENCRYPTION", "always", 1); }
    ~EncryptAlways() { unsetenv("ACTORFLOW_DATA_PLANE_ENCRYPTION"); }
  } encrypt;
  RoundTripWithSecret(k64MiBFloats + 3, "encrypted");  // not a whole number of records
}

// A server on every interface advertises 0.0.0.0:P; the master hands its
// peers the host it reached the server at instead.
BOOST_AUTO_TEST_CASE(a_server_on_every_interface_is_reached_where_the_session_reached_it) {
  SecretFile secret;
  ServerProcess server;
  StartServer(&server, 1, {"--host", "0.0.0.0", "--secret_file", secret.path});
  BOOST_TEST(DataAddress(server).rfind("0.0.0.0:", 0) == 0u, server.output());
  auto session = Connect({server.address()}, secret.path);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Op("Neg", "there", {"x"}, DT_FLOAT, RemoteCpu(1));
  b.Op("Neg", "back", {"there"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const Tensor x = Pattern((int64_t{8} << 20) / 4, 2.0f);
  const Moved moved;
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"back"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  CheckScaled(out[0], x, 1.0f, "via 0.0.0.0");
  BOOST_TEST(moved.SentSince() == uint64_t{8} << 20);
  BOOST_TEST(moved.ReceivedSince() == uint64_t{8} << 20);
  BOOST_TEST(moved.FallbacksSince() == 0u);
  BOOST_TEST(session->Close().ok());
}

// The peer dies in the middle of a frame: the sender's connection breaks,
// the step fails (the master notices the lost task), nothing hangs, and
// the session goes on with the next step once it has no remote part.
BOOST_AUTO_TEST_CASE(a_server_killed_mid_transfer_fails_the_step_without_a_hang) {
  ServerProcess server;
  StartServer(&server, 1);
  auto session = Connect({server.address()});
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Op("Neg", "there", {"x"}, DT_FLOAT, RemoteCpu(1));
  b.Op("Neg", "back", {"there"}, DT_FLOAT, LocalCpu(0));
  b.Op("Neg", "local_only", {"x"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const Tensor x = Pattern((int64_t{1} << 30) / 4, 1.0f);  // 1 GiB: long enough to cut
  const auto t0 = std::chrono::steady_clock::now();
  auto step = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({{"x", x}}, {"back"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  server.Stop(SIGKILL);
  const bool ended = step.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  BOOST_TEST_REQUIRE(ended);
  Status s = step.get();
  BOOST_TEST(!s.ok());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST_MESSAGE("the step failed after " << seconds << " s: " << s);
  std::vector<Tensor> out;
  s = session->Run({{"x", Tensor::FromVector<float>({1, 2})}}, {"local_only"}, {}, &out);
  BOOST_TEST(s.ok(), s);
}

BOOST_AUTO_TEST_CASE(a_connection_with_a_wrong_proof_is_closed) {
  SecretFile secret;
  ServerProcess server;
  StartServer(&server, 1, {"--secret_file", secret.path});
  const std::string address = DataAddress(server);
  std::atomic<bool> stop{false};
  std::string key;  // the connection key, when one is agreed (never here)
  // By hand (core/net/data_handshake.h): a hello, then a proof of 32 wrong
  // bytes. The listener answers "refused" (0) and closes.
  int fd = -1;
  BOOST_TEST_REQUIRE(net::ConnectTcp(address, std::chrono::seconds(5), stop, &fd).ok());
  std::string hello("AFDH\x02\x00\x01\x00", 8);
  hello.append(32, 'n');
  BOOST_TEST_REQUIRE(net::SendAll(fd, hello.data(), hello.size()).ok());
  std::string challenge(72, '\0');
  BOOST_TEST_REQUIRE(net::RecvAll(fd, challenge.data(), challenge.size()).ok());
  BOOST_TEST(challenge.substr(0, 8) == std::string("AFDH\x02\x00\x01\x00", 8));  // required
  const std::string wrong_proof(32, 'p');
  BOOST_TEST_REQUIRE(net::SendAll(fd, wrong_proof.data(), wrong_proof.size()).ok());
  char byte = 1;
  BOOST_TEST(recv(fd, &byte, 1, 0) == 1);
  BOOST_TEST(byte == 0);
  BOOST_TEST(recv(fd, &byte, 1, 0) == 0);  // closed
  close(fd);
  // Another cluster's secret: the listener's own proof does not match it,
  // so the connector gives up first.
  BOOST_TEST_REQUIRE(net::ConnectTcp(address, std::chrono::seconds(5), stop, &fd).ok());
  Status s = net::ConnectorHandshake(fd, "a secret of some other cluster, long enough", false, &key);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  close(fd);
  // No secret at all: the listener asks for one, the connector gives up.
  BOOST_TEST_REQUIRE(net::ConnectTcp(address, std::chrono::seconds(5), stop, &fd).ok());
  s = net::ConnectorHandshake(fd, "", false, &key);
  BOOST_TEST(s.code() == Code::UNAUTHENTICATED, s);
  close(fd);
  // The member's secret gets in; a frame of garbage then closes the
  // connection.
  BOOST_TEST_REQUIRE(net::ConnectTcp(address, std::chrono::seconds(5), stop, &fd).ok());
  s = net::ConnectorHandshake(fd, secret.secret, false, &key);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::string garbage(net::kFramePrefixBytes, 'x');
  BOOST_TEST(net::SendAll(fd, garbage.data(), garbage.size()).ok());
  BOOST_TEST(recv(fd, &byte, 1, 0) <= 0);  // closed (or reset: bytes were left unread)
  close(fd);
  server.Stop(SIGTERM);
  BOOST_TEST(server.output().find("refused a connection from 127.0.0.1:") != std::string::npos,
             server.output());
  BOOST_TEST(server.output().find("wrong proof of the cluster secret") != std::string::npos,
             server.output());
  BOOST_TEST(server.output().find("not a tensor frame") != std::string::npos, server.output());
}

BOOST_AUTO_TEST_CASE(a_frame_declaring_more_than_the_host_holds_is_refused) {
  ServerProcess server;
  StartServer(&server, 1);
  std::atomic<bool> stop{false};
  std::string key;
  int fd = -1;
  BOOST_TEST_REQUIRE(net::ConnectTcp(DataAddress(server), std::chrono::seconds(5), stop, &fd).ok());
  BOOST_TEST_REQUIRE(net::ConnectorHandshake(fd, "", false, &key).ok());
  // A real header, then the payload size rewritten to 2^62 bytes.
  std::string header = net::EncodeFrameHeader(1, "k", Tensor::Scalar<float>(1));
  const uint64_t huge = uint64_t{1} << 62;
  std::memcpy(header.data() + 24, &huge, sizeof huge);
  BOOST_TEST(net::SendAll(fd, header.data(), header.size()).ok());
  char byte = 0;
  BOOST_TEST(recv(fd, &byte, 1, 0) <= 0);  // closed (or reset: bytes were left unread)
  close(fd);
  server.Stop(SIGTERM);
  BOOST_TEST(server.output().find("this host's memory") != std::string::npos, server.output());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
