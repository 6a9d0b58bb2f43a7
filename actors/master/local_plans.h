// LocalPlanCache: step plans the master has made runnable on the client's
// own thread. A plan qualifies once every partition of its step is on the
// in-process worker and its first runs (the ones the cost model measures)
// went through the actors; the master publishes it then and withdraws it
// when the session closes. Decisions stay with the master: the cache only
// holds what it decided, keyed like its own plan cache. No CAF here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace af {

struct LocalPlan {
  struct Partition {
    int64_t handle = 0;  // in the in-process worker's LocalPartitionTable
    int num_args = 0;
    int num_retvals = 0;
  };
  struct Place {
    int partition = -1;  // -1: not used by this step
    int index = -1;      // the _Arg or _Retval index
  };
  std::vector<Partition> partitions;
  std::vector<Place> feeds;          // parallel to the call's feeds
  std::vector<Place> fetches;        // parallel to the call's fetches
  std::vector<int> fetch_from_feed;  // per fetch: the feed it returns, or -1

  // Partitions on other processes' workers, which the client's thread asks
  // to run by the direct step path (actors/remote_step.h); empty: every
  // partition is in this process.
  struct Remote {
    std::string lane_address;  // the worker's data plane
    std::string task;          // "/job:J/replica:R/task:T", for errors
    uint64_t incarnation = 0;
    std::vector<int64_t> handles;
    std::vector<int> num_args;
  };
  struct RemotePlace {
    int remote = -1;  // -1: not on another process
    int partition = -1;
    int index = -1;
  };
  int64_t session_id = 0;
  std::vector<Remote> remotes;
  std::vector<RemotePlace> remote_feeds;    // parallel to feeds
  std::vector<RemotePlace> remote_fetches;  // parallel to fetches
};

// Feeds, fetches and targets in the caller's order (a permuted call is
// another plan, so positions line up without remapping). The separators
// cannot occur in node names.
std::string StepCacheKey(const std::vector<std::pair<std::string, Tensor>>& feeds,
                         const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets);

class LocalPlanCache {
 public:
  void Publish(const std::string& key, std::shared_ptr<const LocalPlan> plan);
  void Withdraw(const std::string& key);
  // Called when a worker of the session is lost: the client's threads
  // abort the steps they run with remote partitions (set by their runner).
  void set_on_worker_lost(std::function<void(const Status&)> hook);
  void WorkerLost(const Status& why) const;
  std::shared_ptr<const LocalPlan> Find(const std::string& key) const;
  void Clear();
  int64_t size() const;

 private:
  mutable std::mutex mu_;  // guards plans_ and on_worker_lost_
  std::function<void(const Status&)> on_worker_lost_;
  std::unordered_map<std::string, std::shared_ptr<const LocalPlan>> plans_;
};

}  // namespace af
