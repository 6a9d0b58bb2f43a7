// LocalStepRunner: runs a cached step of an in-process session on the
// calling thread. The master decided the plan and published it
// (actors/master/local_plans.h); the device actors built and registered its
// executors (actors/worker/local_partitions.h). A Run that finds both skips
// the four actor hops of the message path (client -> master -> worker ->
// device and back), each of which can wait for a sleeping scheduler thread:
// the executors start on this thread and only expensive kernels go to the
// device pools. Anything else (a new signature, a traced step, remote
// workers, the measured first runs) takes the message path. No CAF here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actors/master/local_plans.h"
#include "actors/worker/local_partitions.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// The executors of `plan`'s in-process partitions, in order; false when one
// is no longer registered.
bool FindPlanPartitions(const LocalPlan& plan, const LocalPartitionTable& table,
                        std::vector<LocalPartition>* out);
// One call frame per in-process partition, with the feeds that go to them.
std::vector<CallFrame> PlanFrames(const LocalPlan& plan,
                                  const std::vector<std::pair<std::string, Tensor>>& feeds);

class LocalStepRunner {
 public:
  using Clock = std::chrono::steady_clock;

  LocalStepRunner(std::shared_ptr<LocalPlanCache> plans,
                  std::shared_ptr<LocalPartitionTable> partitions)
      : plans_(std::move(plans)), partitions_(std::move(partitions)) {}

  // Runs the step if the master published a plan for `key` and all its
  // partitions are still registered; returns false (and does nothing)
  // otherwise. `*status` is the step's result when it ran.
  bool TryRun(const std::string& key, const std::vector<std::pair<std::string, Tensor>>& feeds,
              size_t num_fetches, Clock::time_point deadline, std::vector<Tensor>* outputs,
              Status* status);

  // Aborts every step running here (the session is closing).
  void AbortAll(const Status& why);

 private:
  const std::shared_ptr<LocalPlanCache> plans_;
  const std::shared_ptr<LocalPartitionTable> partitions_;
  std::mutex mu_;  // guards running_ and closed_
  std::unordered_set<std::shared_ptr<StepContext>> running_;
  Status closed_;  // set by AbortAll: later steps fail with it at once
};

}  // namespace af
