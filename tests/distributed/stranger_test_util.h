// A stranger's raw TCP connections to a server, and the member's step that
// shows the server still serves afterwards (wire_attack_test.cc,
// connection_limits_test.cc).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "client/session.h"
#include "core/status.h"
#include "tests/actors/session_test_util.h"

namespace af::testing {

inline int64_t ResidentMiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) / 1024;
  }
  return -1;
}

// A blocking TCP connection to 127.0.0.1:port from `source` (any 127.x.y.z
// reaches loopback, so one test can be several sources); -1 on failure.
inline int ConnectFrom(const std::string& source, uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  sockaddr_in to = from;
  to.sin_port = htons(port);
  if (inet_pton(AF_INET, source.c_str(), &from.sin_addr) != 1 ||
      inet_pton(AF_INET, "127.0.0.1", &to.sin_addr) != 1 ||
      bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Whether the other end has closed `fd` (end of stream or reset), without
// waiting.
inline bool PeerClosed(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  char byte;
  const ssize_t got = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got == 0 || (got < 0 && errno == ECONNRESET);
}

// A member's session (holding the secret at `secret_path`) negates 5 on
// the server at `address`.
inline Status MemberNegates(const std::string& address, const std::string& secret_path) {
  SessionOptions options;
  options.remote_workers = {address};
  options.cluster_secret_file = secret_path;
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  AF_RETURN_IF_ERROR(Session::Create(options, &session));
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Op("Neg", "n", {"x"}, DT_FLOAT, "/job:worker/replica:0/task:0/device:CPU:0");
  AF_RETURN_IF_ERROR(session->Extend(b.graph()));
  std::vector<Tensor> out;
  AF_RETURN_IF_ERROR(session->Run({{"x", Tensor::Scalar<float>(5)}}, {"n"}, {}, &out));
  if (out.size() != 1 || out[0].scalar<float>() != -5.0f) {
    return errors::Internal("Neg(5) on ", address, " did not give -5");
  }
  return session->Close();
}

}  // namespace af::testing
