#include "core/metrics/http_endpoint.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/metrics/metrics_registry.h"
#include "core/net/tcp_socket.h"

namespace af::metrics {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
constexpr int kRequestTimeoutMs = 2000;

const char* Reason(int code) {
  switch (code) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

// Reads up to the end of the request's head, within the deadline; false if
// it does not come (too slow, too long, or closed).
bool ReadHead(int fd, std::string* head) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kRequestTimeoutMs);
  char buffer[1024];
  while (head->find("\r\n\r\n") == std::string::npos && head->find("\n\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0 || head->size() > kMaxRequestBytes) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    head->append(buffer, static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

HttpAnswer Route(const std::string& request_line, const std::function<bool()>& ready) {
  HttpAnswer a;
  const size_t first = request_line.find(' ');
  const size_t second = first == std::string::npos ? first : request_line.find(' ', first + 1);
  if (second == std::string::npos) {
    a.code = 400;
    a.body = "bad request line\n";
    return a;
  }
  const std::string method = request_line.substr(0, first);
  std::string path = request_line.substr(first + 1, second - first - 1);
  path = path.substr(0, path.find('?'));
  if (method != "GET" && method != "HEAD") {
    a.code = 405;
    a.body = "only GET\n";
    return a;
  }
  if (path == "/metrics") {
    a.content_type = "text/plain; version=0.0.4; charset=utf-8";
    a.body = MetricsRegistry::Global().Exposition();
  } else if (path == "/healthz") {
    a.body = "ok\n";
  } else if (path == "/readyz") {
    const bool is_ready = !ready || ready();
    a.code = is_ready ? 200 : 503;
    a.body = is_ready ? "ready\n" : "not ready\n";
  } else {
    a.code = 404;
    a.body = "not found: try /metrics, /healthz or /readyz\n";
  }
  if (method == "HEAD") a.body.clear();
  return a;
}

HttpEndpoint::~HttpEndpoint() { Stop(); }

Status HttpEndpoint::Start(Options options, std::unique_ptr<HttpEndpoint>* out) {
  std::unique_ptr<HttpEndpoint> endpoint(new HttpEndpoint());
  endpoint->options_ = std::move(options);
  Status s = net::ListenTcpOnPort(endpoint->options_.host, endpoint->options_.port, 64,
                                  &endpoint->listen_fd_, &endpoint->address_);
  if (!s.ok()) return s.WithContext("metrics endpoint");
  if (pipe2(endpoint->wake_, O_CLOEXEC) != 0) {
    return errors::Internal("metrics endpoint: pipe: ", std::strerror(errno));
  }
  HttpEndpoint* raw = endpoint.get();
  endpoint->thread_ = std::thread([raw] { raw->Serve(); });
  *out = std::move(endpoint);
  return Status::OK();
}

void HttpEndpoint::Stop() {
  if (stopping_.exchange(true)) return;
  if (wake_[1] >= 0) {
    const char byte = 0;
    ssize_t ignored = write(wake_[1], &byte, 1);
    (void)ignored;
  }
  if (thread_.joinable()) thread_.join();
  for (int fd : {listen_fd_, wake_[0], wake_[1]}) {
    if (fd >= 0) close(fd);
  }
  listen_fd_ = wake_[0] = wake_[1] = -1;
}

void HttpEndpoint::Serve() {
  pthread_setname_np(pthread_self(), "af.metrics");
  while (!stopping_.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) <= 0) continue;
    if (fds[1].revents != 0) return;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: the connection stays queued and poll would say
      // so at once; wait instead of spinning.
      if (errno == EMFILE || errno == ENFILE) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    Answer(fd);
    close(fd);
  }
}

void HttpEndpoint::Answer(int fd) {
  // A scraper that stops reading must not hold the endpoint.
  net::ConfigureDataSocket(fd, std::chrono::milliseconds(kRequestTimeoutMs));
  std::string head;
  HttpAnswer a;
  if (!ReadHead(fd, &head)) {
    a.code = 400;
    a.body = "incomplete request\n";
  } else {
    std::string line = head.substr(0, head.find('\n'));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    a = Route(line, options_.ready);
  }
  std::string response = "HTTP/1.1 " + std::to_string(a.code) + " " + Reason(a.code) +
                         "\r\nContent-Type: " + a.content_type +
                         "\r\nContent-Length: " + std::to_string(a.body.size()) +
                         "\r\nConnection: close\r\n\r\n" + a.body;
  (void)net::SendAll(fd, response.data(), response.size());
}

}  // namespace af::metrics
