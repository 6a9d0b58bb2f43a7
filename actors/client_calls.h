// Client calls: what a plain thread hands the master actor. The thread
// sends a shared call object and waits on its Completion; the master fills
// in the result and notifies. Shared ownership keeps the object alive when
// the thread gave up at its deadline before the master answered.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/completion.h"
#include "core/resource_mgr.h"
#include "core/session_stats.h"
#include "core/status.h"
#include "core/step_traffic.h"
#include "core/tensor.h"
#include "proto/graph.pb.h"
#include "proto/step_stats.pb.h"
#include "runtime/step_plan.h"

namespace af {

struct ClientCall {
  Completion done;
  Status status;
  Completion::Clock::time_point deadline;
  // For callers that are actors (a server's master sessions), which must
  // not block on `done`: runs once, right after the result is recorded, on
  // whatever thread finished the call.
  std::function<void()> on_finish;

  // Records the result and wakes the caller; later calls are ignored, so
  // that a timeout racing with a reply cannot answer twice.
  void Finish(Status result) {
    if (finished_.exchange(true, std::memory_order_acq_rel)) return;
    status = std::move(result);
    done.Notify();
    if (on_finish) on_finish();
  }
  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> finished_{false};
};

// Discover the workers' devices and open the session on every worker.
struct InitCall : ClientCall {
  std::vector<DeviceAttributes> devices;  // result
};

struct ExtendCall : ClientCall {
  tensorflow::GraphDef graph;
};

struct RunCall : ClientCall {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::vector<Tensor> outputs;  // result, parallel to `fetches`
  bool trace = false;                // collect every device's node times
  tensorflow::StepStats step_stats;  // result of a traced step
  StepTraffic traffic;               // result: what crossed between processes
};

struct CloseCall : ClientCall {};

// Resets containers (or lists them) on every device of every worker.
struct ContainerCall : ClientCall {
  bool list = false;                    // else reset `containers`
  std::vector<std::string> containers;  // empty: the default container
  std::vector<ContainerListing> listing;  // result of a list
};

struct StatsCall : ClientCall {
  SessionStats stats;  // result
};

}  // namespace af
