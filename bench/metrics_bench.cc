// bench_metrics: what a server's metrics cost (issue 28). One run prints:
//  - the instrumentation a remote step pays on a worker, in nanoseconds:
//    its step counter and latency histogram, and the per-peer byte counters
//    of one tensor in and one out (what StepRegistry::Finish and the data
//    plane do), timed in a loop, beside the remote scalar step it rides on
//    (fed here, Mul on an `actorflow server`, back here), p50 in the same
//    run, and their ratio;
//  - a scrape of that server's /metrics: p50 and p99 of a whole GET
//    (connect, request, the exposition, close) and the body's size.
// The instrumentation cannot be switched off (it is a few relaxed atomics),
// so its cost is measured by itself rather than as a difference of two
// noisy step timings.
//
//   bench_metrics [--runs 2000]
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/session.h"
#include "core/metrics/metrics_registry.h"
#include "core/net/peer_traffic.h"
#include "core/net/tcp_socket.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;

double InstrumentationNanosPerStep() {
  metrics::MetricsRegistry& m = metrics::MetricsRegistry::Global();
  metrics::Counter* steps = m.GetCounter("bench_steps_total", "bench", {{"task", "t"}});
  metrics::Histogram* seconds =
      m.GetHistogram("bench_step_seconds", "bench", metrics::StepLatencyBounds());
  const std::string peer = "127.0.0.1:40000", host = "127.0.0.1";
  constexpr int kBatch = 100000;
  const double per_batch = TimePerCall(
      [&] {
        for (int i = 0; i < kBatch; ++i) {
          const Clock::time_point start = Clock::now();
          net::BytesReceivedFrom(host)->Add(4);
          net::BytesSentTo(peer)->Add(4);
          seconds->Observe(std::chrono::duration<double>(Clock::now() - start).count());
          steps->Add();
        }
      },
      0.5);
  return per_batch / kBatch * 1e9;
}

std::string Scrape(const std::string& address) {
  std::atomic<bool> stop{false};
  int fd = -1;
  CheckOk(net::ConnectTcp(address, std::chrono::seconds(5), stop, &fd), "connect to metrics");
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n";
  CheckOk(net::SendAll(fd, request.data(), request.size()), "send");
  std::string answer;
  char buffer[16384];
  for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, n);
  close(fd);
  return answer;
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  using namespace af;
  using namespace af::bench;
  const int runs = RunsFlag(argc, argv, 2000);
  const double instrumentation_ns = InstrumentationNanosPerStep();
  PrintResult("metrics", "instrumentation_per_step", "", "ns", instrumentation_ns, "ns");

  BenchServer server;
  server.Start({"--port", "0", "--task", "1", "--threads", "1", "--metrics_port", "0"});
  SessionOptions options;
  options.remote_workers = {server.address()};
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "session");
  // x (here) -> Identity there -> Identity back here: a scalar each way.
  tensorflow::GraphDef graph;
  tensorflow::NodeDef* x_node = AddNode(&graph, "x", "Placeholder", {});
  SetTypeAttr(x_node, "dtype", DT_FLOAT);
  x_node->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  tensorflow::NodeDef* there = AddNode(&graph, "there", "Identity", {"x"});
  SetTypeAttr(there, "T", DT_FLOAT);
  there->set_device("/job:worker/replica:0/task:1/device:CPU:0");
  tensorflow::NodeDef* back = AddNode(&graph, "y", "Identity", {"there"});
  SetTypeAttr(back, "T", DT_FLOAT);
  back->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  CheckOk(session->Extend(graph), "extend");
  std::vector<double> step_us;
  std::vector<Tensor> out;
  const Tensor x = Tensor::Scalar<float>(1);
  for (int i = 0; i < runs + 50; ++i) {
    const auto start = Clock::now();
    CheckOk(session->Run({{"x", x}}, {"y"}, {}, &out), "step");
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    if (i >= 50) step_us.push_back(us);
  }
  const double step_p50 = Quantile(step_us, 0.5);
  PrintResult("metrics", "remote_scalar_step", "", "p50_us", step_p50, "us");
  PrintResult("metrics", "instrumentation_over_step", "", "ratio",
              instrumentation_ns / (step_p50 * 1000), "x");
  const std::string metrics_address = server.metrics_address();
  std::vector<double> scrape_us;
  size_t body_bytes = 0;
  for (int i = 0; i < 200; ++i) {
    const auto start = Clock::now();
    const std::string answer = Scrape(metrics_address);
    scrape_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    body_bytes = answer.size() - answer.find("\r\n\r\n") - 4;
  }
  PrintResult("metrics", "scrape", "", "p50_us", Quantile(scrape_us, 0.5), "us");
  PrintResult("metrics", "scrape", "", "p99_us", Quantile(scrape_us, 0.99), "us");
  PrintResult("metrics", "scrape", "", "body_bytes", static_cast<double>(body_bytes), "bytes");
  (void)session->Close();
  return 0;
}
