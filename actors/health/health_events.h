// Health events a master publishes to an application that embeds Actorflow
// (actors/embedding.h). They report what the master already decides (a
// worker declared lost, a step failed); nothing here detects anything.
#pragma once

#include <cstdint>
#include <string>

#include <caf/fwd.hpp>

#include "core/status.h"

namespace af {

// A worker of the session was declared lost: its connection went down, or
// it missed heartbeats for HealthCheckOptions::lost_after. Steps using it
// fail (each with its own StepAborted) until it rejoins.
struct WorkerLost {
  std::string task;  // "/job:J/replica:R/task:T at host:port", or the address
  Status reason;
};

// A step that had started on the workers failed and was aborted on every
// one of them: a kernel error, a lost worker, the deadline, a closed
// session. Requests rejected before a step starts (a feed of the wrong
// type, an unknown node) are answered to the caller only: no step exists.
struct StepAborted {
  int64_t step_id = 0;
  Status status;
};

// Serialization (actors/transport/messages.cc is not touched: these live in
// actors/embedding.cc), so that RegisterActorflowTypes can register them.
caf::error inspect(caf::serializer& f, WorkerLost& x);
caf::error inspect(caf::deserializer& f, WorkerLost& x);
caf::error inspect(caf::serializer& f, StepAborted& x);
caf::error inspect(caf::deserializer& f, StepAborted& x);

}  // namespace af
