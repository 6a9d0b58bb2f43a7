// FaultInjector: one task's faults at run time (the worker asks it once per
// step and once per tensor leaving the process) and the counts of what it
// injected. It only decides; the worker actor applies the decisions
// (actors/worker/peer_router.cc, worker_actor.cc), so this stays CAF-free
// and testable.
//
// Determinism: compute and transport draw from two streams seeded by the
// spec's seed mixed with the task's name, so the sequence of decisions of a
// task is fixed by the seed. Which tensor meets which decision follows the
// order the process sends them, which thread scheduling may vary when one
// step sends several tensors at once; steps of a sequential loop meet the
// compute decisions in order.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/fault_injection/fault_rng.h"
#include "core/fault_injection/fault_spec.h"
#include "core/status.h"

namespace af::faults {

// The environment variable read when no --faults flag is given.
inline constexpr const char* kFaultsEnvironmentVariable = "ACTORFLOW_FAULTS";

struct ComputeFault {
  std::chrono::nanoseconds delay{0};
  bool report = false;  // log the counts now (see FaultInjector::CountsLine)
};

struct TransportFault {
  bool drop = false;
  bool duplicate = false;
  std::chrono::nanoseconds delay{0};  // of the tensor (and of its copy)
  bool report = false;                // log the counts now
  bool log_drop = false;              // one of the first drops: log it by name
  uint64_t drop_number = 0;           // 1 for the task's first drop, ...
};

struct FaultCounts {
  uint64_t steps = 0;                 // steps seen
  uint64_t compute_delays = 0;        // of them delayed (by more than 0)
  double compute_delay_ms = 0;        // total
  uint64_t tensors = 0;               // tensors seen leaving the process
  uint64_t transport_delays = 0;      // of them delayed
  double transport_delay_ms = 0;      // total
  uint64_t drops = 0;
  uint64_t duplicates = 0;
};

class FaultInjector {
 public:
  // Drops logged one by one before only the counts are.
  static constexpr uint64_t kDropsLoggedByName = 10;

  FaultInjector(FaultSpec spec, std::string task_name);

  // The faults of `task_name` from `flag_spec` (a --faults value), or when
  // that is empty from $ACTORFLOW_FAULTS. Null (and OK) when neither
  // configures anything for the task; INVALID_ARGUMENT naming the source
  // and the field when the text is malformed.
  static Status Create(std::string_view flag_spec, std::string_view task_name,
                       std::shared_ptr<FaultInjector>* out);

  const FaultSpec& spec() const { return spec_; }
  const std::string& task_name() const { return task_name_; }

  // Any thread. One per RunGraph step of the task.
  ComputeFault NextCompute();
  // Any thread. One per tensor leaving for another process;
  // `may_duplicate` is false for transfers streamed in chunks or over the
  // data plane (two concurrent streams into one destination buffer would
  // corrupt it).
  TransportFault NextTransport(bool may_duplicate);

  FaultCounts counts() const;
  // The line logged when the task starts: what is injected, with the seed.
  std::string Describe() const;
  // The counts in one line.
  std::string CountsLine() const;

 private:
  // True for the 1st, 10th, 100th, 1000th injected fault, then every
  // 1000th: a line per burst of activity without flooding the log.
  bool CountInjected();  // mu_ held

  const FaultSpec spec_;
  const std::string task_name_;
  mutable std::mutex mu_;  // guards compute_rng_, transport_rng_, counts_ and injected_
  FaultRng compute_rng_;
  FaultRng transport_rng_;
  FaultCounts counts_;
  uint64_t injected_ = 0;
};

}  // namespace af::faults
