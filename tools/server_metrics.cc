#include "tools/server_metrics.h"

#include <unistd.h>

#include <fstream>

#include "core/allocator.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/runtime_gauges.h"
#include "core/metrics/session_counters.h"
#include "core/net/peer_traffic.h"

namespace af::tools {
namespace {

double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

void RegisterProcessGauges() {
  metrics::MetricsRegistry& m = metrics::MetricsRegistry::Global();
  m.SetGauge("actorflow_memory_bytes_in_use", "Bytes of tensors the CPU allocator holds now.",
             [] { return static_cast<double>(GetCpuAllocator()->GetStats().bytes_in_use); });
  m.SetGauge("actorflow_memory_peak_bytes",
             "The most bytes of tensors the CPU allocator held at once.",
             [] { return static_cast<double>(GetCpuAllocator()->GetStats().peak_bytes_in_use); });
  m.SetGauge("actorflow_process_resident_bytes", "The process's resident memory (VmRSS).",
             ResidentBytes);
  // Listed before the first queue, accumulator or watched task exists.
  metrics::RegisterRuntimeGauges();
  // Listed before the first transfer and the first session.
  net::RegisterDataPlaneTotals();
  metrics::SessionsOpened();
  metrics::SessionsClosed();
  m.SetGauge("actorflow_worker_sessions", "Sessions open on this process's workers now.",
             [] { return static_cast<double>(metrics::SessionsOpenNow()); });
}

}  // namespace

Status StartServerMetrics(const std::string& host, uint16_t port,
                          const std::atomic<bool>* serving,
                          std::unique_ptr<metrics::HttpEndpoint>* out) {
  RegisterProcessGauges();
  metrics::HttpEndpoint::Options options;
  options.host = host;
  options.port = port;
  options.ready = [serving] { return serving->load(); };
  return metrics::HttpEndpoint::Start(std::move(options), out);
}

}  // namespace af::tools
