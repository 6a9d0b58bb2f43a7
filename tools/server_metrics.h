// `actorflow server --metrics_port P`: the server's Prometheus endpoint and
// health probes (core/metrics/http_endpoint.h), with the process-wide
// gauges a scrape reads (memory, open sessions; the queues', accumulators'
// and heartbeats' families) registered once.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "core/metrics/http_endpoint.h"
#include "core/status.h"

namespace af::tools {

// Serves /metrics, /healthz and /readyz on host:port (port 0: one the
// kernel picks); /readyz says ready while `*serving` is true.
Status StartServerMetrics(const std::string& host, uint16_t port,
                          const std::atomic<bool>* serving,
                          std::unique_ptr<metrics::HttpEndpoint>* out);

}  // namespace af::tools
