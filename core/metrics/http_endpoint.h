// A server's HTTP endpoint for operators (issue 28): GET /metrics
// (Prometheus' text format), /healthz (liveness: the process answers) and
// /readyz (readiness: the server serves). One thread, one request per
// connection, a request of at most 8 KiB read within 2 s: a scraper or a
// kubelet probe, not a web server. It is unauthenticated and read-only, and
// says nothing a cluster member could not ask for; bind it where only the
// operator's network reaches. No CAF here.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/status.h"

namespace af::metrics {

class HttpEndpoint {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    uint16_t port = 0;  // 0: an ephemeral port
    // /readyz answers 200 while this says true (null: always).
    std::function<bool()> ready;
  };

  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  static Status Start(Options options, std::unique_ptr<HttpEndpoint>* out);
  // "host:port" it listens on.
  const std::string& address() const { return address_; }
  void Stop();

 private:
  HttpEndpoint() = default;
  void Serve();
  void Answer(int fd);

  Options options_;
  std::string address_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // Stop writes here to end the poll
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// The response to one request line ("GET /metrics HTTP/1.1"): status code,
// content type and body. Exposed for tests.
struct HttpAnswer {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};
HttpAnswer Route(const std::string& request_line, const std::function<bool()>& ready);

}  // namespace af::metrics
