#include "actors/worker/step_registry.h"

#include "core/logging.h"

namespace af {

void RecentSteps::Add(int64_t step_id) {
  if (!set_.insert(step_id).second) return;
  order_.push_back(step_id);
  if (order_.size() > kCapacity) {
    set_.erase(order_.front());
    order_.pop_front();
  }
}

StepRegistry::Entry* StepRegistry::FindOrMake(int64_t step_id) {
  if (finished_.Contains(step_id)) return nullptr;
  auto [it, inserted] = steps_.try_emplace(step_id);
  if (inserted) it->second.context = std::make_shared<StepContext>(step_id, local_devices_);
  return &it->second;
}

std::shared_ptr<StepContext> StepRegistry::GetOrCreate(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry* entry = FindOrMake(step_id);
  return entry == nullptr ? nullptr : entry->context;
}

StepRegistry::StepRegistry(std::string task_name,
                           std::shared_ptr<const LocalDeviceNames> local_devices)
    : task_name_(std::move(task_name)), local_devices_(std::move(local_devices)) {
  metrics::MetricsRegistry& m = metrics::MetricsRegistry::Global();
  const std::string help = "Steps (RunGraph) this worker ran to their end, by outcome.";
  steps_ok_ = m.GetCounter("actorflow_worker_steps_total", help,
                           {{"task", task_name_}, {"outcome", "ok"}});
  steps_failed_ = m.GetCounter("actorflow_worker_steps_total", help,
                               {{"task", task_name_}, {"outcome", "error"}});
  step_seconds_ = m.GetHistogram("actorflow_worker_step_seconds",
                                 "Time from a step's RunGraph to its end on this process's "
                                 "workers, in seconds.",
                                 metrics::StepLatencyBounds());
}

std::shared_ptr<StepContext> StepRegistry::Claim(int64_t step_id, int64_t session_id,
                                                 const std::string& where, Status* why) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry* entry = FindOrMake(step_id);
  if (entry == nullptr) {
    *why = errors::InvalidArgument("RunGraph: step ", step_id, " already ran on ", where);
    return nullptr;
  }
  if (entry->claimed) {
    *why = errors::InvalidArgument("RunGraph: step ", step_id, " is already running on ", where);
    return nullptr;
  }
  entry->claimed = true;
  entry->claimed_at = Clock::now();
  entry->session_id = session_id;
  return entry->context;
}

void StepRegistry::Finish(int64_t step_id) {
  std::shared_ptr<StepContext> released;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = steps_.find(step_id);
  if (it != steps_.end()) {
    if (it->second.claimed) {
      step_seconds_->Observe(
          std::chrono::duration<double>(Clock::now() - it->second.claimed_at).count());
      (it->second.context->status().ok() ? steps_ok_ : steps_failed_)->Add();
    }
    released = std::move(it->second.context);
    steps_.erase(it);
  }
  finished_.Add(step_id);
}

bool StepRegistry::Finished(int64_t step_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_.Contains(step_id);
}

Status StepRegistry::Deliver(int64_t step_id, const std::string& key, const Tensor& value,
                             bool is_dead) {
  std::shared_ptr<StepContext> step = GetOrCreate(step_id);
  if (step == nullptr) return Status::OK();
  Status delivered = step->rendezvous()->DeliverFromPeer(key, value, is_dead);
  NoteDelivery(delivered);
  return delivered;
}

void StepRegistry::NoteDelivery(const Status& delivered) {
  if (delivered.code() != Code::ALREADY_EXISTS) return;
  const uint64_t n = duplicates_.fetch_add(1) + 1;
  uint64_t power = 1;
  while (power < n) power *= 10;
  if (power != n) return;
  AF_LOG(WARNING) << "worker " << task_name_ << ": " << n << " duplicated tensor"
                  << (n == 1 ? "" : "s") << " ignored (latest: " << delivered.message() << ")";
}

void StepRegistry::Abort(int64_t step_id, const Status& why) {
  std::shared_ptr<StepContext> step = GetOrCreate(step_id);
  if (step != nullptr) step->Abort(why);
}

void StepRegistry::AbortSession(int64_t session_id, const Status& why) {
  std::vector<std::shared_ptr<StepContext>> aborted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, entry] : steps_) {
      if (entry.claimed && entry.session_id == session_id) aborted.push_back(entry.context);
    }
  }
  for (const auto& step : aborted) step->Abort(why);
}

void StepRegistry::AbortAll(const Status& why) {
  std::vector<std::shared_ptr<StepContext>> aborted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, entry] : steps_) aborted.push_back(entry.context);
  }
  for (const auto& step : aborted) step->Abort(why);
}

std::vector<int64_t> StepRegistry::SweepOrphans(Clock::duration lifetime) {
  std::vector<int64_t> swept;
  std::vector<std::shared_ptr<StepContext>> released;
  const auto now = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = steps_.begin(); it != steps_.end();) {
    if (!it->second.claimed && now - it->second.context->created() > lifetime) {
      swept.push_back(it->first);
      released.push_back(std::move(it->second.context));
      it = steps_.erase(it);
    } else {
      ++it;
    }
  }
  return swept;
}

std::vector<StepRegistry::Stall> StepRegistry::NewStalls(Clock::duration longer_than) {
  std::vector<Stall> stalls;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [step_id, entry] : steps_) {
    for (const auto& stalled : entry.context->rendezvous()->StalledRecvs(longer_than)) {
      if (!entry.reported_stalls.insert(stalled.key).second) continue;
      stalls.push_back(Stall{step_id, stalled.key, stalled.seconds});
    }
  }
  return stalls;
}

size_t StepRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

}  // namespace af
