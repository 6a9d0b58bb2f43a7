#include "actors/local_step.h"

#include "actors/completion.h"
#include "runtime/executor.h"

namespace af {
namespace {

// Step ids of the message path are random 64-bit values from the master;
// these count in a range of their own and never reach a worker actor.
std::atomic<int64_t> g_next_local_step_id{int64_t{1} << 62};

// How long to wait, past the deadline, for an aborted step's kernels to
// return before giving up on them (they keep what they use alive).
constexpr auto kAbortGrace = std::chrono::milliseconds(500);

}  // namespace

bool FindPlanPartitions(const LocalPlan& plan, const LocalPartitionTable& table,
                        std::vector<LocalPartition>* out) {
  out->resize(plan.partitions.size());
  for (size_t i = 0; i < plan.partitions.size(); ++i) {
    if (!table.Find(plan.partitions[i].handle, &(*out)[i])) return false;
  }
  return true;
}

std::vector<CallFrame> PlanFrames(const LocalPlan& plan,
                                  const std::vector<std::pair<std::string, Tensor>>& feeds) {
  std::vector<CallFrame> frames;
  frames.reserve(plan.partitions.size());
  for (const LocalPlan::Partition& p : plan.partitions)
    frames.emplace_back(std::vector<Tensor>(p.num_args), p.num_retvals);
  for (size_t f = 0; f < feeds.size(); ++f) {
    const LocalPlan::Place& place = plan.feeds[f];
    if (place.partition >= 0) frames[place.partition].mutable_args()[place.index] = feeds[f].second;
  }
  return frames;
}

bool LocalStepRunner::TryRun(const std::string& key,
                             const std::vector<std::pair<std::string, Tensor>>& feeds,
                             size_t num_fetches, Clock::time_point deadline,
                             std::vector<Tensor>* outputs, Status* status) {
  std::shared_ptr<const LocalPlan> plan = plans_->Find(key);
  if (plan == nullptr || !plan->remotes.empty() || plan->feeds.size() != feeds.size() ||
      plan->fetches.size() != num_fetches) {
    return false;
  }
  const size_t n = plan->partitions.size();
  std::vector<LocalPartition> parts;
  if (!FindPlanPartitions(*plan, *partitions_, &parts)) return false;
  if (Clock::now() >= deadline) {
    *status = errors::DeadlineExceeded("Run: the deadline passed before the step started");
    return true;
  }

  const int64_t step_id = g_next_local_step_id.fetch_add(1, std::memory_order_relaxed);
  auto step = std::make_shared<StepContext>(step_id, partitions_->local_devices());
  std::vector<CallFrame> frames = PlanFrames(*plan, feeds);
  auto done = std::make_shared<Completion>();
  step->Start(std::move(frames), [done] { done->Notify(); });
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_.ok()) {
      *status = closed_;
      return true;
    }
    running_.insert(step);
  }
  RunPartitions(step, parts);

  bool finished = done->WaitUntil(deadline);
  if (!finished) {
    step->Abort(errors::DeadlineExceeded("Run (step ", step_id,
                                         "): the step did not finish before the deadline"));
    finished = done->WaitUntil(Clock::now() + kAbortGrace);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_.erase(step);
  }
  if (!finished) {
    *status = errors::DeadlineExceeded("Run (step ", step_id,
                                       "): the step did not finish before the deadline, and "
                                       "its kernels did not stop when it was aborted");
    return true;
  }
  *status = step->status();
  if (!status->ok()) return true;

  std::vector<std::vector<Tensor>> retvals(n);
  for (size_t i = 0; i < n; ++i) {
    *status = step->ConsumeRetvals(static_cast<int>(i), &retvals[i]);
    if (!status->ok()) return true;
  }
  outputs->resize(num_fetches);
  for (size_t f = 0; f < num_fetches; ++f) {
    const int from_feed = plan->fetch_from_feed[f];
    if (from_feed >= 0) {
      (*outputs)[f] = feeds[from_feed].second;
      continue;
    }
    const LocalPlan::Place& place = plan->fetches[f];
    (*outputs)[f] = std::move(retvals[place.partition][place.index]);
  }
  return true;
}

void LocalStepRunner::AbortAll(const Status& why) {
  std::vector<std::shared_ptr<StepContext>> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = why;
    running.assign(running_.begin(), running_.end());
  }
  for (const auto& step : running) step->Abort(why);
}

}  // namespace af
