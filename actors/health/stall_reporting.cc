#include "actors/health/stall_reporting.h"
#include "core/logging.h"

#include <cstdio>
#include <mutex>
#include <utility>

namespace af::actors {
namespace {

std::mutex g_mu;
StallReporting& Current() {
  static StallReporting reporting;
  return reporting;
}

}  // namespace

void SetStallReporting(StallReporting reporting) {
  std::lock_guard<std::mutex> lock(g_mu);
  Current() = std::move(reporting);
}

StallReporting CurrentStallReporting() {
  std::lock_guard<std::mutex> lock(g_mu);
  return Current();
}

void ReportStall(const StallReporting& reporting, const std::string& what) {
  const std::string line = "actorflow stall inspector: " + what;
  if (reporting.log) {
    reporting.log(line);
  } else {
    AF_LOG(WARNING) << line;
  }
}

}  // namespace af::actors
