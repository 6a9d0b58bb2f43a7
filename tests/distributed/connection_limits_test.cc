// Strangers' idle connections against the caps of a server's CAF port
// (actors/transport/connection_guard.h): one source holds at most
// --max_connections_per_source, all together at most --max_connections,
// and a connection that never finishes its TLS handshake is closed after
// --handshake_timeout_secs. Refusals are logged naming the flag, and a
// member is served afterwards. Times asserted are generous: the point is
// that connections go away, not how fast on a loaded machine.
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "actors/transport/connection_guard.h"
#include "core/cluster_secret.h"
#include "tests/distributed/server_process.h"
#include "tests/distributed/stranger_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;
using testing::ConnectFrom;
using testing::PeerClosed;
using testing::ServerProcess;

// What the server's farewell line counts.
struct GuardTotals {
  int64_t over_source = -1, over_total = -1, timed_out = -1, peak = -1;
};

GuardTotals TotalsOf(const std::string& output) {
  static const std::regex line(
      R"((\d+) open at most at once; closed at accept: (\d+) over )"
      R"(--max_connections_per_source, (\d+) over --max_connections; (\d+) shut down)");
  std::smatch m;
  GuardTotals totals;
  if (!std::regex_search(output, m, line)) return totals;
  totals.peak = std::stoll(m[1]);
  totals.over_source = std::stoll(m[2]);
  totals.over_total = std::stoll(m[3]);
  totals.timed_out = std::stoll(m[4]);
  return totals;
}

// Waits (at most `limit`) until at least `want` of `fds` are closed by the
// server; returns how many are.
int WaitForClosed(const std::vector<int>& fds, int want, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (true) {
    int closed = 0;
    for (int fd : fds) closed += PeerClosed(fd) ? 1 : 0;
    if (closed >= want || Clock::now() >= deadline) return closed;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The member's step, retried until `limit`: the server closes a stranger's
// connection only when it reads the end of it, a moment after the test's
// close, and until then a full server refuses the member too.
Status MemberServedWithin(const ServerProcess& server, const std::string& secret_path,
                          std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (true) {
    Status s = testing::MemberNegates(server.address(), secret_path);
    if (s.ok() || Clock::now() >= deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void CloseAll(std::vector<int>* fds) {
  for (int fd : *fds) close(fd);
  fds->clear();
}

BOOST_AUTO_TEST_SUITE(connection_limits)

BOOST_AUTO_TEST_CASE(one_source_holds_its_cap_and_silent_handshakes_time_out) {
  testing::TempDir dir("af_conn_limits");
  const std::string secret_path = dir.path() + "/secret";
  BOOST_TEST_REQUIRE(WriteNewSecretFile(secret_path).ok());
  ServerProcess server;
  BOOST_TEST_REQUIRE(server
                         .Start({"--secret_file", secret_path, "--max_connections_per_source",
                                 "20", "--handshake_timeout_secs", "1"})
                         .ok());
  const auto start = Clock::now();
  std::vector<int> idle;
  for (int i = 0; i < 40; ++i) {
    idle.push_back(ConnectFrom("127.0.0.1", server.port()));
    BOOST_TEST_REQUIRE(idle.back() >= 0, "connection " << i << ": " << std::strerror(errno));
  }
  // The 20 over the cap are closed at accept, the other 20 by the
  // handshake deadline (1 s after their accept).
  const int refused = WaitForClosed(idle, 20, std::chrono::seconds(20));
  const double refused_after = std::chrono::duration<double>(Clock::now() - start).count();
  const int closed = WaitForClosed(idle, 40, std::chrono::seconds(20));
  const double closed_after = std::chrono::duration<double>(Clock::now() - start).count();
  BOOST_TEST_MESSAGE(refused << " of 40 idle connections closed after " << refused_after
                             << " s, " << closed << " after " << closed_after << " s");
  BOOST_TEST(refused >= 20);
  BOOST_TEST(closed == 40);
  CloseAll(&idle);

  const Status s = MemberServedWithin(server, secret_path, std::chrono::seconds(20));
  BOOST_TEST(s.ok(), s);
  BOOST_TEST(server.Stop(SIGTERM) == 0);
  const std::string& output = server.output();
  BOOST_TEST(output.find("refused a connection from 127.0.0.1") != std::string::npos, output);
  BOOST_TEST(output.find("(--max_connections_per_source 20)") != std::string::npos);
  BOOST_TEST(output.find("(--handshake_timeout_secs 1)") != std::string::npos);
  // Every stranger's connection was either refused or timed out, and the
  // server never held more than its cap for the source.
  const GuardTotals totals = TotalsOf(output);
  BOOST_TEST(totals.over_source >= 1);
  BOOST_TEST(totals.timed_out >= 1);
  BOOST_TEST(totals.over_source + totals.timed_out == 40);
  BOOST_TEST(totals.over_total == 0);
  BOOST_TEST(totals.peak <= 20);
}

BOOST_AUTO_TEST_CASE(all_sources_together_hold_at_most_the_total_cap) {
  testing::TempDir dir("af_conn_limits");
  const std::string secret_path = dir.path() + "/secret";
  BOOST_TEST_REQUIRE(WriteNewSecretFile(secret_path).ok());
  ServerProcess server;
  // No handshake deadline within the test: only the cap closes connections.
  BOOST_TEST_REQUIRE(server
                         .Start({"--secret_file", secret_path, "--max_connections", "10",
                                 "--handshake_timeout_secs", "600"})
                         .ok());
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i) {
    const std::string source = "127.0.0." + std::to_string(1 + i % 4);
    idle.push_back(ConnectFrom(source, server.port()));
    BOOST_TEST_REQUIRE(idle.back() >= 0, source << ": " << std::strerror(errno));
  }
  BOOST_TEST(WaitForClosed(idle, 10, std::chrono::seconds(20)) >= 10);
  // The 10 admitted stay (5 per source is far under the per-source cap).
  std::this_thread::sleep_for(std::chrono::seconds(1));
  BOOST_TEST(WaitForClosed(idle, 20, std::chrono::seconds(0)) == 10);
  CloseAll(&idle);

  const Status s = MemberServedWithin(server, secret_path, std::chrono::seconds(20));
  BOOST_TEST(s.ok(), s);
  BOOST_TEST(server.Stop(SIGTERM) == 0);
  const std::string& output = server.output();
  BOOST_TEST(output.find("(--max_connections 10)") != std::string::npos, output);
  const GuardTotals totals = TotalsOf(output);
  BOOST_TEST(totals.over_total >= 10);
  BOOST_TEST(totals.over_source == 0);
  BOOST_TEST(totals.timed_out == 0);
  BOOST_TEST(totals.peak <= 10);
}

BOOST_AUTO_TEST_CASE(bad_connection_limits_are_refused_naming_the_flag) {
  const std::vector<std::vector<std::string>> bad = {
      {"--max_connections_per_source", "0"},
      {"--max_connections", "-5"},
      {"--max_connections", "many"},
      {"--handshake_timeout_secs", "0"},
  };
  for (const std::vector<std::string>& flag : bad) {
    std::string output;
    const int code = testing::RunActorflow({"server", flag[0], flag[1]}, &output);
    BOOST_TEST(code == 2, flag[0] << " " << flag[1]);
    const std::string error = "bad value '" + flag[1] + "' for " + flag[0];
    BOOST_TEST(output.find(error) != std::string::npos, output);
  }
}

// The guard itself, in this process: caps answered with EAGAIN at accept,
// the deadline answered with shutdown, a finished handshake left alone.
BOOST_AUTO_TEST_CASE(the_guard_refuses_with_eagain_and_shuts_down_late_handshakes) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_TEST_REQUIRE(listener >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  BOOST_TEST_REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&address), size) == 0);
  BOOST_TEST_REQUIRE(listen(listener, 16) == 0);
  BOOST_TEST_REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) == 0);
  const uint16_t port = ntohs(address.sin_port);

  struct Unguard {
    ~Unguard() { actors::StopConnectionGuard(); }
  } unguard;
  actors::ConnectionGuardOptions options;
  options.max_connections_per_source = 2;
  options.max_connections = 3;
  options.handshake_timeout = std::chrono::seconds(1);
  actors::GuardListeningPort(port, options);

  std::vector<int> clients;
  for (const char* source : {"127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.3"}) {
    clients.push_back(ConnectFrom(source, port));
    BOOST_TEST_REQUIRE(clients.back() >= 0);
  }
  // Accepted in the order they connected.
  const int first = accept(listener, nullptr, nullptr);
  actors::ConnectionHandshakeDone(first);  // as the SSL_accept override does
  const int second = accept(listener, nullptr, nullptr);
  BOOST_TEST(first >= 0);
  BOOST_TEST(second >= 0);
  errno = 0;
  BOOST_TEST(accept(listener, nullptr, nullptr) == -1);  // a third from 127.0.0.1
  BOOST_TEST(errno == EAGAIN);
  const int other = accept(listener, nullptr, nullptr);  // 127.0.0.2
  BOOST_TEST(other >= 0);
  errno = 0;
  BOOST_TEST(accept(listener, nullptr, nullptr) == -1);  // 127.0.0.3: 3 open in all
  BOOST_TEST(errno == EAGAIN);
  BOOST_TEST(WaitForClosed({clients[2], clients[4]}, 2, std::chrono::seconds(10)) == 2);
  actors::ConnectionGuardCounts counts = actors::GetConnectionGuardCounts();
  BOOST_TEST(counts.open == 3);
  BOOST_TEST(counts.refused_per_source == 1);
  BOOST_TEST(counts.refused_total == 1);

  // The deadline shuts down (this end reads the end of its stream) what
  // has not finished a handshake; the descriptor stays its owner's.
  pollfd late[] = {{second, POLLIN, 0}, {other, POLLIN, 0}};
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline && !((late[0].revents & POLLIN) && (late[1].revents & POLLIN))) {
    poll(late, 2, 100);
  }
  char byte;
  BOOST_TEST(recv(second, &byte, 1, MSG_DONTWAIT) == 0);
  BOOST_TEST(recv(other, &byte, 1, MSG_DONTWAIT) == 0);
  errno = 0;
  BOOST_TEST(recv(first, &byte, 1, MSG_DONTWAIT) == -1);
  BOOST_TEST(errno == EAGAIN);
  BOOST_TEST(actors::GetConnectionGuardCounts().handshake_timeouts == 2);

  for (int fd : {first, second, other}) close(fd);
  counts = actors::GetConnectionGuardCounts();
  BOOST_TEST(counts.open == 0);
  BOOST_TEST(counts.peak_open == 3);
  CloseAll(&clients);
  close(listener);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
