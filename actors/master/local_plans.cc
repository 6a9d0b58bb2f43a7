#include "actors/master/local_plans.h"

namespace af {

std::string StepCacheKey(const std::vector<std::pair<std::string, Tensor>>& feeds,
                         const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets) {
  std::string key;
  for (const auto& feed : feeds) key.append(feed.first).push_back('\x1f');
  key.push_back('\x1e');
  for (const auto& fetch : fetches) key.append(fetch).push_back('\x1f');
  key.push_back('\x1e');
  for (const auto& target : targets) key.append(target).push_back('\x1f');
  return key;
}

void LocalPlanCache::Publish(const std::string& key, std::shared_ptr<const LocalPlan> plan) {
  std::lock_guard<std::mutex> lock(mu_);
  plans_[key] = std::move(plan);
}

void LocalPlanCache::Withdraw(const std::string& key) {
  std::shared_ptr<const LocalPlan> old;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  if (it == plans_.end()) return;
  old = std::move(it->second);
  plans_.erase(it);
}

void LocalPlanCache::set_on_worker_lost(std::function<void(const Status&)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  on_worker_lost_ = std::move(hook);
}

void LocalPlanCache::WorkerLost(const Status& why) const {
  std::function<void(const Status&)> hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hook = on_worker_lost_;
  }
  if (hook) hook(why);
}

std::shared_ptr<const LocalPlan> LocalPlanCache::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  return it == plans_.end() ? nullptr : it->second;
}

void LocalPlanCache::Clear() {
  std::unordered_map<std::string, std::shared_ptr<const LocalPlan>> old;
  std::lock_guard<std::mutex> lock(mu_);
  old.swap(plans_);
}

int64_t LocalPlanCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(plans_.size());
}

}  // namespace af
