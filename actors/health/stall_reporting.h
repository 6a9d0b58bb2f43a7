// Where the stall inspector's reports go. A worker inspects its steps'
// Recvs itself; queues are shared by every step of the process, so their
// actors read the process-wide setting here, which the process's worker
// sets when it starts (the last worker started wins).
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace af::actors {

struct StallReporting {
  std::chrono::milliseconds after{10000};  // 0: off
  std::function<void(const std::string&)> log;  // null: stderr
};

void SetStallReporting(StallReporting reporting);
StallReporting CurrentStallReporting();

// One report, prefixed "actorflow stall inspector: ".
void ReportStall(const StallReporting& reporting, const std::string& what);

}  // namespace af::actors
