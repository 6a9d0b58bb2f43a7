// bench/session_latency: the distribution of a cached Session::Run's
// latency (feed a scalar -> Identity -> fetch), one thread, and the step
// rate of 8 threads running at once on one session. Percentiles rather than
// a mean, because on a shared machine a few descheduled runs would
// otherwise hide what a run costs.
#include <algorithm>
#include <atomic>
#include <thread>

#include "bench/bench_util.h"
#include "client/session.h"
#include "core/types.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;

tensorflow::GraphDef IdentityGraph() {
  tensorflow::GraphDef g;
  SetTypeAttr(AddNode(&g, "x", "Placeholder", {}), "dtype", DT_FLOAT);
  SetTypeAttr(AddNode(&g, "y", "Identity", {"x"}), "T", DT_FLOAT);
  return g;
}

std::unique_ptr<Session> NewSession(int devices) {
  SessionOptions options;
  options.num_cpu_devices = devices;
  std::unique_ptr<Session> session;
  CheckOk(Session::Create(options, &session), "create session");
  CheckOk(session->Extend(IdentityGraph()), "extend");
  return session;
}

void Latency(int runs) {
  auto session = NewSession(1);
  std::vector<Tensor> out;
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x:0", Tensor::Scalar<float>(1)}};
  for (int i = 0; i < 1000; ++i) CheckOk(session->Run(feeds, {"y:0"}, {}, &out), "warm up");
  std::vector<double> micros(runs);
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    CheckOk(session->Run(feeds, {"y:0"}, {}, &out), "run");
    micros[i] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  std::sort(micros.begin(), micros.end());
  const std::string extra = "\"runs\":" + std::to_string(runs);
  for (int p : {10, 50, 90, 99}) {
    PrintResult("session_latency", "identity_scalar", extra, "p" + std::to_string(p) + "_us",
                micros[static_cast<size_t>(runs) * p / 100], "us");
  }
}

void Concurrent(int threads, int devices, double seconds) {
  auto session = NewSession(devices);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> steps{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<Tensor> out;
      const std::vector<std::pair<std::string, Tensor>> feeds = {
          {"x:0", Tensor::Scalar<float>(static_cast<float>(t))}};
      int64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        CheckOk(session->Run(feeds, {"y:0"}, {}, &out), "run");
        ++n;
      }
      steps.fetch_add(n);
    });
  }
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& t : pool) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  PrintResult("session_latency", "identity_scalar_concurrent",
              "\"threads\":" + std::to_string(threads) + ",\"devices\":" + std::to_string(devices),
              "steps_per_s", static_cast<double>(steps.load()) / elapsed, "1/s");
}

}  // namespace
}  // namespace af::bench

int main() {
  af::bench::Latency(20000);
  af::bench::Concurrent(8, 1, 1.0);
  af::bench::Concurrent(8, 2, 1.0);
  return 0;
}
