// The master actor's state and the step functions shared by its handlers.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/interfaces.h"
#include "actors/master/local_plans.h"
#include "actors/master/master_actor.h"
#include "core/metrics/gauge_set.h"
#include "core/metrics/runtime_gauges.h"
#include "graph/cost_model.h"
#include "graph/graph.h"
#include "graph/optimizer.h"
#include "runtime/step_plan.h"

namespace af::actors {

class DataPlane;

struct WorkerRecord {
  MasterWorker worker;
  std::vector<wire::DeviceInfo> devices;
  bool alive = true;
  std::string task;          // "/job:J/replica:R/task:T", from its devices
  uint64_t incarnation = 0;  // the process it was when the session opened
  std::chrono::steady_clock::time_point last_heartbeat;
  Status lost;               // why it is not alive
  // Its data plane as this process reaches it, for the direct step path
  // (empty: in this process, or no data plane).
  std::string lane_address;
  bool rejoining = false;    // a reconnection to its address is under way
  // last_heartbeat where a scrape of the metrics reads it (remote workers
  // only: a scrape must not ask the master actor).
  metrics::GaugeSet::Member heartbeat_gauge;

  // Set last_heartbeat through here, so that the metrics follow.
  void Heard(std::chrono::steady_clock::time_point at) {
    last_heartbeat = at;
    heartbeat_gauge.Set(metrics::HeartbeatStamp(at));
  }

  // "/job:ps/replica:0/task:1 at 10.0.0.2:2222", for error messages.
  std::string Describe() const {
    if (task.empty()) return "worker " + worker.address;
    return worker.remote ? task + " at " + worker.address : task;
  }
};

// Where a feed goes: partition `partition` of group `group`, `_Arg` `arg`.
struct FeedRoute {
  int group = -1;
  int partition = -1;
  int arg = -1;
};
// Where a fetch comes from: a `_Retval` of a group's partition, or (when
// the fetch is itself fed) feed `feed`.
struct FetchRoute {
  int fetch = -1;
  int partition = -1;
  int retval = -1;
};

// A step signature made runnable: its plan's partitions registered on their
// workers, grouped by worker (one RunGraph per group).
struct CachedStep {
  struct Group {
    int worker = -1;
    std::vector<int64_t> handles;
    std::vector<int> num_args;
    std::vector<int> num_retvals;
    std::vector<FetchRoute> fetches;  // what this group's reply carries
  };
  std::string key;  // in MasterState::cache
  bool ready = false;
  int dispatched = 0;  // Runs sent through the workers so far
  std::vector<Group> groups;
  std::vector<FeedRoute> feeds;        // parallel to the signature's feeds
  std::vector<int> fetch_from_feed;    // per fetch: feed index, or -1
  std::vector<std::shared_ptr<RunCall>> waiting;  // Runs queued while registering
  // What the graph optimizer did when the plan was made; traced steps list it.
  std::vector<PassReport> optimizer_passes;
  int pending_registrations = 0;
  Status error;
};

struct InFlightStep {
  std::shared_ptr<RunCall> call;
  std::shared_ptr<CachedStep> step;
  int pending = 0;
  // Lane requests not yet answered (actors/transport/lane_replies.h).
  std::vector<uint64_t> correlations;
};

// What a lane reply answers: a group of an in-flight step.
struct DirectRequest {
  int64_t step_id = 0;
  int group = 0;
};

struct MasterState {
  int64_t session_id = 0;
  int64_t next_step_id = 0;
  std::vector<WorkerRecord> workers;
  std::unordered_map<std::string, int> device_worker;  // device -> workers index
  std::vector<DeviceAttributes> devices;
  bool ready = false;
  bool closed = false;

  tensorflow::GraphDef graph;
  std::unique_ptr<Graph> imported = std::make_unique<Graph>();  // `graph`, checked
  std::unordered_set<std::string> node_names;
  CostModel cost_model;
  OptimizerOptions optimizer;  // for every step plan of the session

  std::unordered_map<std::string, std::shared_ptr<CachedStep>> cache;
  std::unordered_map<int64_t, InFlightStep> inflight;
  // Plans the client's threads may run themselves (null: never publish).
  std::shared_ptr<LocalPlanCache> local_plans;
  HealthCheckOptions health;
  std::string cluster_secret;  // proven to a restarted task before it rejoins
  // The direct step path (actors/worker/direct_steps.h): this process's
  // data plane (null: none, every RunGraph goes through CAF), where remote
  // workers send replies to it, and the requests waiting for one.
  std::shared_ptr<DataPlane> lane;
  std::string reply_address;
  std::unordered_map<uint64_t, DirectRequest> direct_pending;
  static inline const char* name = "af.master";
};

using MasterPointer = master_actor::stateful_pointer<MasterState>;

// The run path (master_steps.cc).
void RunStep(MasterPointer self, std::shared_ptr<RunCall> call);
// Fails a running step: aborts it on its workers and answers the client.
void FailStep(MasterPointer self, int64_t step_id, const Status& why);
// A RunGraph reply that came by the direct step path (or its CAF fallback).
void OnDirectReply(MasterPointer self, uint64_t correlation, wire::RunGraphResponse& response);
// Fails the steps sent by the direct path whose deadline passed (a lane
// request has no timeout of its own).
void FailOverdueSteps(MasterPointer self);
// The session as a worker opens it: the master and every worker's devices.
OpenSession SessionOpening(MasterPointer self);

}  // namespace af::actors
