// Coordination protocols by name, as a training program takes them from a
// flag (`--protocol backup:2`):
//   async     every worker applies its gradients as soon as it has them;
//   sync      TensorFlow's SyncReplicasOptimizer: the chief averages one
//             gradient of every worker per step (m = n);
//   backup:B  sync with B backup workers (OSDI §4.4): of n workers the first
//             m = n - B gradients of each step are averaged, the rest dropped;
//   ssp:S     stale-synchronous parallel: workers apply as in async, but none
//             starts a step more than S steps ahead of the slowest.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "client/coordination/coordination_protocol.h"
#include "core/status.h"

namespace af {

// The protocols' waits and elastic rules. Every wait has a deadline.
struct ProtocolOptions {
  // sync, backup: how long a worker waits for the chief's token (the
  // token queue's dequeue timeout); past it the step fails with
  // DEADLINE_EXCEEDED. Keep it above aggregation_timeout_ms.
  int64_t token_timeout_ms = 120000;
  // sync, backup: how long one aggregation of the chief waits for the m
  // gradients of a step. Past it, once the training has made an update, the
  // chief shrinks m and n to the gradients that did arrive, with a warning
  // (a lost worker's replacement had this long); before the first update
  // (workers still starting) it only logs and waits again.
  int64_t aggregation_timeout_ms = 30000;
  bool shrink_on_timeout = true;
  // ssp: how long a worker's tick may wait to start its next step, and how
  // long a silent worker keeps holding the others back (<= 0: forever).
  int64_t tick_timeout_ms = 120000;
  int64_t inactive_after_ms = 30000;
};

// Makes the protocol `spec` names ("async", "sync", "backup:B", "ssp:S"; B
// and S whole numbers >= 0), or one registered below. Anything else is
// INVALID_ARGUMENT naming the string.
Status CreateCoordinationProtocol(std::string_view spec, const ProtocolOptions& options,
                                  std::unique_ptr<CoordinationProtocol>* out);

// A researcher's protocol, made from the text after "kind:" in its spec
// (empty without a colon).
using ProtocolMaker = std::function<Status(std::string_view spec, std::string_view argument,
                                           const ProtocolOptions& options,
                                           std::unique_ptr<CoordinationProtocol>* out)>;
// Makes CreateCoordinationProtocol("kind" or "kind:ARG") use `maker`, so a
// program's --protocol flag selects it like the built-in ones. A built-in
// or already registered kind is ALREADY_EXISTS.
Status RegisterCoordinationProtocol(const std::string& kind, ProtocolMaker maker);

}  // namespace af
