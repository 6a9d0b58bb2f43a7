// StepRegistry: the steps a worker knows, by step id, shared by the worker
// actor and the direct step path (actors/worker/direct_steps.h), readable
// and writable from any thread. A step's context is made at its first
// mention — a tensor from a peer, an abort, or its RunGraph, whichever
// comes first, on whichever path — so that a step run by one path receives
// what arrives by the other. Finished steps are remembered for a while, so
// that a late tensor or abort does not bring them back. No CAF here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "actors/worker/step_context.h"
#include "core/metrics/metrics_registry.h"

namespace af {

// Step ids that finished lately (a bounded memory).
class RecentSteps {
 public:
  void Add(int64_t step_id);
  bool Contains(int64_t step_id) const { return set_.count(step_id) != 0; }

 private:
  static constexpr size_t kCapacity = 4096;
  std::deque<int64_t> order_;
  std::unordered_set<int64_t> set_;
};

class StepRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  // `task_name` names this worker in log lines.
  StepRegistry(std::string task_name, std::shared_ptr<const LocalDeviceNames> local_devices);

  // The step's context, made at its first mention; null when the step
  // finished here lately.
  std::shared_ptr<StepContext> GetOrCreate(int64_t step_id);
  // The step's context for its RunGraph in session `session_id`; null, with
  // `*why`, when the step already ran or finished here (`where` names this
  // worker in the message).
  std::shared_ptr<StepContext> Claim(int64_t step_id, int64_t session_id, const std::string& where,
                                     Status* why);
  // Forgets the step and remembers it finished.
  void Finish(int64_t step_id);
  bool Finished(int64_t step_id) const;

  // A tensor from another process for a Recv of the step (ignored, OK, when
  // the step finished). ALREADY_EXISTS: it arrived twice (NoteDelivery).
  Status Deliver(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead);
  // What became of a delivered tensor. An error means the step was aborted
  // (its own status already tells the master) or the tensor arrived twice:
  // a duplicated message, ignored and counted (logged at the 1st, 10th,
  // 100th...: without injected faults a duplicate is a transport bug).
  void NoteDelivery(const Status& delivered);
  uint64_t duplicates_ignored() const { return duplicates_.load(); }
  // Aborts the step (made first if unknown: its RunGraph then fails at
  // once); nothing for a finished step.
  void Abort(int64_t step_id, const Status& why);
  void AbortSession(int64_t session_id, const Status& why);
  void AbortAll(const Status& why);

  // Drops steps never claimed for longer than `lifetime` (their RunGraph
  // never came); returns their ids.
  std::vector<int64_t> SweepOrphans(Clock::duration lifetime);

  // Recvs that have waited longer than `longer_than`, each reported once.
  struct Stall {
    int64_t step_id = 0;
    std::string key;
    double seconds = 0;
  };
  std::vector<Stall> NewStalls(Clock::duration longer_than);

  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<StepContext> context;
    int64_t session_id = 0;
    bool claimed = false;
    Clock::time_point claimed_at;
    std::unordered_set<std::string> reported_stalls;
  };
  // Under mu_.
  Entry* FindOrMake(int64_t step_id);

  const std::string task_name_;
  const std::shared_ptr<const LocalDeviceNames> local_devices_;
  std::atomic<uint64_t> duplicates_{0};
  // The server's metrics (core/metrics/metrics_registry.h): steps this
  // worker ran, by outcome, and how long they took.
  metrics::Counter* steps_ok_;
  metrics::Counter* steps_failed_;
  metrics::Histogram* step_seconds_;
  mutable std::mutex mu_;  // guards steps_ and finished_
  std::unordered_map<int64_t, Entry> steps_;
  RecentSteps finished_;
};

}  // namespace af
