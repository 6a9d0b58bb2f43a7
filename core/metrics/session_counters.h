// Sessions opened and closed on this process's workers: the worker counts
// them, and a scrape (tools/server_metrics.cc) and `actorflow server
// --idle_exit_secs` read their difference, the sessions open now. One place
// names them, so the three cannot drift apart.
#pragma once

#include <cstdint>

#include "core/metrics/metrics_registry.h"

namespace af::metrics {

Counter* SessionsOpened();
Counter* SessionsClosed();
// Opened less closed; never negative.
int64_t SessionsOpenNow();

}  // namespace af::metrics
