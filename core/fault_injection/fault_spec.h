// FaultSpec: the faults one task injects, and the text that configures a
// whole cluster's (`actorflow server --faults SPEC`, or the environment
// variable ACTORFLOW_FAULTS, which `actorflow cluster` passes to every task).
//
//   SPEC  := GROUP ('|' GROUP)*
//   GROUP := FIELD (';' FIELD)*          (blanks around separators ignored)
//   FIELD := task=SEL[,SEL...]   the group applies only to tasks matching a
//                                selector, a partial task name: /job:worker
//                                (every worker), /job:worker/task:2,
//                                /job:localhost (a client's own process);
//                                a group without task= applies everywhere
//          | compute=DIST        delay of each RunGraph step of the task
//          | compute_at=start|end  delay the step's start (default: its
//                                partitions run late, so its peers wait
//                                too) or its answer to the master
//          | transport=DIST      delay of each tensor leaving the task for
//                                another process
//          | drop=P              probability that such a tensor is lost
//          | dup=P               probability that it arrives twice (tensors
//                                sent as messages; large tensors streamed in
//                                chunks or over the data plane are never
//                                duplicated: a stream does not duplicate)
//          | seed=N              the random streams' seed (default 1); each
//                                task mixes its name in, so tasks differ
//          | cap=DURATION        no delay lasts longer (default 3600s)
//   DIST  := see core/fault_injection/delay_distribution.h
//
// Groups apply in order, each matching one overriding the fields it sets:
// put general groups first, e.g.
//   "transport=exp:1ms;seed=7 | task=/job:worker/task:0;compute=pareto:20ms:1.5"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/fault_injection/delay_distribution.h"
#include "core/status.h"

namespace af::faults {

enum class ComputeAt { kStart, kEnd };

struct FaultSpec {
  DelayDistribution compute;
  ComputeAt compute_at = ComputeAt::kStart;
  DelayDistribution transport;
  double drop = 0;
  double dup = 0;
  uint64_t seed = 1;
  double cap_ns = 3600e9;

  // Injects nothing (the task runs as without a spec).
  bool empty() const { return compute.is_none() && transport.is_none() && drop == 0 && dup == 0; }
  bool has_transport_faults() const { return !transport.is_none() || drop > 0 || dup > 0; }
  // Every field in spec form, e.g. "compute=exp:20ms;compute_at=start;
  // transport=none;drop=0.01;dup=0;seed=7;cap=3600s" (parses back the same).
  std::string ToString() const;
};

// Parses `text` and merges the groups that select `task_name`
// ("/job:J/replica:R/task:T") into `out` (defaults first). Every group is
// checked, selected or not, so a mistake in any task's part fails on every
// process. INVALID_ARGUMENT naming the field and what is wrong with it.
Status ParseFaultSpec(std::string_view text, std::string_view task_name, FaultSpec* out);

}  // namespace af::faults
