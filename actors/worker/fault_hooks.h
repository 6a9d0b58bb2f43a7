// FaultHooks: what a worker needs to apply injected faults (issue 11 item 5):
// the task's FaultInjector (core/fault_injection/), which decides, and the
// DelayLine, which makes a step or a tensor late without holding a thread.
// Shared by the worker actor (compute faults) and its session routers
// (transport faults, actors/worker/peer_router.h).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "actors/worker/delay_line.h"
#include "core/fault_injection/fault_injector.h"

namespace af::actors {

struct FaultHooks {
  std::shared_ptr<faults::FaultInjector> injector;  // never null in a FaultHooks
  std::shared_ptr<DelayLine> delay_line;
  std::function<void(const std::string&)> log;  // null: stderr

  // "actorflow <line>" to the log.
  void Log(const std::string& line) const;
  // The counts line, when a decision says it is due.
  void MaybeReport(bool due) const {
    if (due) Log(injector->CountsLine());
  }
};

}  // namespace af::actors
