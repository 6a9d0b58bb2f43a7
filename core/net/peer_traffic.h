// The data plane's bytes per peer as metrics (core/metrics/metrics_registry.h):
// tensor bytes this process sent to each peer's data-plane address and
// received from each peer host (a connection's remote port is ephemeral, so
// received bytes are labelled by host). The counters are looked up without
// allocating once made; at most kMaxPeers distinct labels, the rest counted
// under "other". No CAF here.
#pragma once

#include <string>

#include "core/metrics/metrics_registry.h"

namespace af::net {

// Lists the data plane's tensor totals in the registry now, rather than at
// the first transfer (a server calls it, so its first scrape has them).
void RegisterDataPlaneTotals();
metrics::Counter* BytesSentTo(const std::string& address);
metrics::Counter* BytesReceivedFrom(const std::string& host);

}  // namespace af::net
