// RemoteStepRunner: runs a cached step whose partitions are partly (or
// wholly) on other processes' workers on the calling thread, as
// LocalStepRunner (actors/local_step.h) does for a step of this process
// alone. The master decided and published the plan (actors/master/
// local_plans.h); this thread starts the in-process partitions itself and
// sends each remote worker its RunGraph as a lane message on the data plane
// (actors/worker/direct_steps.h), whose reply comes back to a callback on
// the data-plane reader thread. A remote scalar step then costs a socket
// write and a wake-up each way, and no actor hop at all. The step's
// context lives in the in-process worker's StepRegistry, so tensors from
// the remote workers — on the data plane or through CAF — find it.
//
// Failures end the step as the master's path would: an error reply, the
// deadline, a lost worker (LocalPlanCache::WorkerLost) or the session's
// close abort the step here and on every remote worker (kAbortStep lane
// messages). A plan whose workers are not all reachable by the lane right
// now, or a Run that wants step stats or traffic, takes the master's path.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actors/master/local_plans.h"
#include "actors/worker/local_direct_path.h"
#include "actors/worker/local_partitions.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af::actors {

class RemoteStepRunner {
 public:
  using Clock = std::chrono::steady_clock;

  RemoteStepRunner(std::shared_ptr<LocalPlanCache> plans,
                   std::shared_ptr<LocalPartitionTable> partitions,
                   std::shared_ptr<LocalDirectPathSlot> path)
      : plans_(std::move(plans)), partitions_(std::move(partitions)), path_(std::move(path)) {}

  // Runs the step if the master published a plan with remote partitions for
  // `key` and every remote worker's lane is ready; false (nothing done)
  // otherwise. `*status` is the step's result when it ran.
  bool TryRun(const std::string& key, const std::vector<std::pair<std::string, Tensor>>& feeds,
              size_t num_fetches, Clock::time_point deadline, std::vector<Tensor>* outputs,
              Status* status);

  // Aborts the running steps; with `close`, later steps fail at once too.
  void AbortAll(const Status& why, bool close);

  // Steps this process ran so, since it started (for tests and benchmarks).
  static uint64_t StepsRun();

  struct Running;

 private:
  const std::shared_ptr<LocalPlanCache> plans_;
  const std::shared_ptr<LocalPartitionTable> partitions_;
  const std::shared_ptr<LocalDirectPathSlot> path_;
  std::mutex mu_;  // guards running_ and closed_
  std::unordered_set<std::shared_ptr<Running>> running_;
  Status closed_;
};

}  // namespace af::actors
