// VirtualCluster: the tasks of a cluster (ps, workers, ...) as worker actors
// of this one process, reached through an in-process transport that models
// a network: a fixed latency per message, a bandwidth per link (a link
// carries its messages one after another, B bytes occupying it B/bandwidth)
// and optional straggler delays on a task's steps. Tensors stay zero-copy;
// the model only delays deliveries (on CAF's clock: no thread ever waits).
//
// The tasks speak the very protocol of real `actorflow server` processes
// (OpenSession, RegisterGraph, RunGraph, TensorPush, heartbeats...), and
// sessions reach them through ordinary ClusterSpecs whose addresses are
// "virtual:<cluster>/<job>/<task>", so the same session, master and
// coordination code runs against virtual tasks as against real ones:
//
//   std::unique_ptr<VirtualCluster> cluster;
//   AF_RETURN_IF_ERROR(VirtualCluster::Start(VirtualClusterOptions::PsWorkers(16, 100), &cluster));
//   SessionOptions options;
//   options.cluster = cluster->ClientSpec("worker", 3);  // worker 3's client
//   // ... place the worker's ops on /job:worker/replica:0/task:3/device:CPU:0
//
// No CAF in this header.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/cluster_spec.h"
#include "core/status.h"

namespace af {

// A delay added to every step (RunGraph) a task runs, drawn per step:
// with probability `probability`, constant_ms plus an exponential draw of
// mean exponential_mean_ms.
struct StragglerModel {
  double probability = 1.0;
  double constant_ms = 0;
  double exponential_mean_ms = 0;
};

// What a message between two tasks costs. One link per (sender, receiver)
// pair: a tensor's sender is the task of the Send (from its rendezvous
// key), any other message's the actor that sent it (a session's master).
struct TransportModel {
  // One way, per message. A request (RunGraph, RegisterGraph, heartbeat...)
  // is charged the way there and back (2 x latency) when it is sent: replies
  // are delivered as they are, so their own bytes are not modelled.
  double latency_us = 0;
  // Bytes per second of one link; 0: unlimited.
  double bandwidth_bytes_per_s = 0;
  // Counted on top of each message's tensor bytes (framing, names).
  int64_t message_overhead_bytes = 64;
  // Per task, by its name "/job:worker/replica:0/task:3".
  std::map<std::string, StragglerModel> stragglers;
  uint64_t seed = 1;  // of the straggler draws

  // The default, calibrated to loopback TCP between `actorflow server`
  // processes on the development VM (docs/decisions.md, "Virtual clusters").
  static TransportModel Loopback();
};

struct VirtualClusterOptions {
  // Registry name, the <cluster> in "virtual:<cluster>/<job>/<task>"
  // ([a-zA-Z0-9_-]+); empty: a fresh "vc<N>".
  std::string name;
  // Tasks per job ("ps" -> 16, "worker" -> 100); each task gets one CPU
  // device /job:J/replica:0/task:T/device:CPU:0.
  std::map<std::string, int> jobs;
  TransportModel transport;
  // Threads of each task's device pool (1: a machine's cores are not
  // multiplied by hundreds of tasks; cheap kernels run inline anyway).
  int threads_per_task = 1;
  // Stall inspector of every task (0: off).
  int64_t stall_warning_ms = 10000;
  // Fault and straggler injection for the tasks, as `actorflow server
  // --faults SPEC` (README, "Injecting stragglers and faults": heavy-tailed
  // compute delays, transport delays, drops); empty: $ACTORFLOW_FAULTS.
  // It acts inside each task, on top of `transport`.
  std::string faults;

  static VirtualClusterOptions PsWorkers(int ps, int workers,
                                         TransportModel transport = TransportModel::Loopback());
};

// Counts of what crossed the model (every message sent to a virtual task).
struct VirtualTransportStats {
  int64_t messages = 0;
  int64_t tensor_messages = 0;  // TensorPush, TensorPushBatch, TensorChunk
  int64_t bytes = 0;            // modelled bytes, overheads included
  int64_t free_messages = 0;    // from a session to its own (colocated) task
  int64_t straggler_delays = 0;
};

class VirtualCluster {
 public:
  static Status Start(const VirtualClusterOptions& options, std::unique_ptr<VirtualCluster>* out);
  ~VirtualCluster();  // stops
  VirtualCluster(const VirtualCluster&) = delete;
  VirtualCluster& operator=(const VirtualCluster&) = delete;

  const std::string& name() const;
  // Every task, each at "virtual:<name>/<job>/<task>": for a client that
  // runs in none of the tasks (a chief of its own, a tool).
  const ClusterSpec& spec() const;
  // What the client of task (job, task) gives SessionOptions::cluster: the
  // tasks of the other jobs plus its own (TensorFlow's device filters, so
  // that 100 workers' sessions do not each open on 100 workers), its own
  // marked as colocated: the client's master runs "in" that task, so its
  // messages to it cost nothing, as an in-process master's do.
  ClusterSpec ClientSpec(const std::string& job, int task) const;
  // "/job:J/replica:0/task:T/device:CPU:0".
  static std::string DeviceName(const std::string& job, int task);

  VirtualTransportStats stats() const;
  // Ends every task's worker actor; sessions using them see them go away.
  void Stop();

 private:
  struct Impl;
  explicit VirtualCluster(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace af
