// CoordinationProtocol: how the workers of a data-parallel training combine
// their gradients — the interface a researcher implements to try a new
// protocol, and the one `async`, `sync`, `backup:B` and `ssp:S` implement
// (client/coordination/protocol_factory.h makes them from those strings;
// docs/coordination.md walks through writing one).
//
// Every worker runs the same program: it builds its model (variables on the
// ps tasks, client/replica_device_setter.h), computes gradients with an
// Optimizer, and hands them to the protocol, which adds the train op(s):
//
//   std::unique_ptr<CoordinationProtocol> protocol;
//   AF_RETURN_IF_ERROR(CreateCoordinationProtocol("backup:1", {}, &protocol));
//   std::vector<GradAndVar> grads_and_vars;
//   AF_RETURN_IF_ERROR(optimizer.ComputeGradients(model, loss, {}, &grads_and_vars));
//   ReplicaContext replica{.worker_index = task, .num_workers = 3, .is_chief = task == 0,
//                          .optimizer = &optimizer, .global_step = GetOrCreateGlobalStep(root),
//                          .session_options = options};
//   AF_RETURN_IF_ERROR(protocol->Build(model, grads_and_vars, replica));
//   ClientSession session(root, options);
//   ... the chief initializes the variables, the others wait for it ...
//   AF_RETURN_IF_ERROR(protocol->Start(session));
//   while (protocol->stats().global_step < last_step)
//     AF_RETURN_IF_ERROR(protocol->RunStep(session, {{x, batch}}, {loss}, &out));
//   AF_RETURN_IF_ERROR(protocol->Stop());
//   std::cout << protocol->stats().ToString();
//
// The calls, in order, mirror a SessionRunHook (client/training/
// session_run_hook.h), so a training loop can drive a protocol as a hook:
//   Build        once, while the graph is built: adds the protocol's ops.
//   Start        once per session (again after a recovery), after the
//                variables were initialized or restored: chief-only setup
//                and background work (the sync chief's aggregation loop),
//                and the worker's starting point (its local step).
//   BeforeStep   each step: what the step must feed, fetch and run.
//   AfterStep    each step that succeeded, with the values of the fetches
//                BeforeStep asked for: the protocol's bookkeeping and the
//                statistics (gradients applied and dropped).
//   Stop         at the end: stops what Start started; idempotent.
// RunStep does one step with all three of BeforeStep, one Run, AfterStep.
//
// Every wait a protocol adds has a deadline (ProtocolOptions), so no step
// hangs forever; errors are Statuses naming the protocol and the reason.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/optimizers/optimizer.h"
#include "client/scope.h"
#include "client/session.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// What a worker tells the protocol about itself and the training.
struct ReplicaContext {
  int worker_index = 0;  // 0 .. num_workers-1
  // How logs and stall reports name this worker ("/job:worker/replica:0/
  // task:2"); empty: "worker <worker_index>".
  std::string task_name;
  int num_workers = 1;   // n, every replica of the model
  // The one worker that does the training's shared chores: with `sync` it
  // also aggregates and applies the updates and hands out the tokens.
  bool is_chief = true;
  // Applies the updates (not owned; it must outlive Build).
  Optimizer* optimizer = nullptr;
  // The training's int64 step counter (GetOrCreateGlobalStep), on a ps
  // task; shared state a protocol adds (token queue, clock) lives with it,
  // as TensorFlow puts its token queue.
  Output global_step;
  // The ps tasks ("/job:ps/task:0", ...), for protocols that spread state
  // of their own over them; empty in one process.
  std::vector<std::string> ps_devices;
  // Prefix of the shared names of the protocol's state (accumulators,
  // queues, clocks) on the ps tasks: every worker of one training uses the
  // same, two trainings sharing ps tasks use different ones.
  std::string shared_name = "coordination";
  // How to reach the cluster: a protocol that needs a session of its own
  // (the sync chief's aggregation loop) makes it with these.
  SessionOptions session_options;
};

// What a protocol adds to one step (a SessionRunHook's SessionRunArgs).
struct ProtocolStepArgs {
  ClientSession::FeedType feeds;
  std::vector<Output> fetches;  // their values come back to AfterStep, in order
  std::vector<Operation> targets;
};

// One worker's view of the protocol, readable from any thread.
struct CoordinationStats {
  int64_t steps = 0;  // steps this worker finished
  // Gradients counted per variable: a step of a model with V variables
  // sends V. Applied: reached the model (async, ssp) or were kept by an
  // accumulator for the chief's average (sync, backup). Dropped: never
  // reach the model, because they were computed at an older global step
  // (stale) or came after the step had its m (backup's surplus).
  int64_t gradients_applied = 0;
  int64_t gradients_dropped = 0;
  int64_t steps_dropped = 0;  // steps of which at least one gradient was dropped
  int64_t global_step = -1;   // the latest global step this worker saw (-1: none yet)
  int64_t updates = 0;        // the sync chief: averaged updates it applied
  // The sync chief's current replicas_to_aggregate and total_num_replicas
  // (smaller than configured after an elastic shrink); 0 elsewhere.
  int64_t replicas_to_aggregate = 0;
  int64_t total_num_replicas = 0;

  // "steps 12, gradients applied 24 dropped 2 (1 steps), global step 11".
  std::string ToString() const;
};

class CoordinationProtocol {
 public:
  virtual ~CoordinationProtocol() = default;
  CoordinationProtocol() = default;
  CoordinationProtocol(const CoordinationProtocol&) = delete;
  CoordinationProtocol& operator=(const CoordinationProtocol&) = delete;

  // The spec it was made from: "async", "sync", "backup:1", "ssp:2".
  virtual std::string name() const = 0;

  // How many workers' gradients one global step applies with
  // `num_workers` workers: 1 where each worker's update is a step of its
  // own (async, ssp), m for averaging protocols. A training that counts
  // epochs in examples applied needs it before Build.
  virtual int64_t GradientsPerGlobalStep(int num_workers) const { return 1; }

  // Adds this worker's train op(s) for `grads_and_vars` (from
  // replica.optimizer->ComputeGradients) to the scope's graph. Once.
  virtual Status Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                       const ReplicaContext& replica) = 0;

  // Once per session, after the variables were initialized or restored
  // (by the chief) and before the first step.
  virtual Status Start(ClientSession& session) { return Status::OK(); }

  // What the step must feed, fetch and run (added to `args`, which may
  // hold other requests).
  virtual Status BeforeStep(ClientSession& session, ProtocolStepArgs* args) = 0;

  // After a step that succeeded: `values` are the values of the fetches
  // BeforeStep added, in order.
  virtual Status AfterStep(ClientSession& session, const std::vector<Tensor>& values) {
    return Status::OK();
  }

  // Stops what Start started. Idempotent; a protocol with background work
  // calls it from its destructor too.
  virtual Status Stop() { return Status::OK(); }

  virtual CoordinationStats stats() const;

  // One step: BeforeStep, one Run of the program's feeds and fetches with
  // the protocol's, AfterStep. `outputs` gets the program's fetches only.
  Status RunStep(ClientSession& session, const ClientSession::FeedType& feeds,
                 const std::vector<Output>& fetches, std::vector<Tensor>* outputs,
                 const RunOptions& run_options = {});

 protected:
  // Counts one finished step: `applied` and `dropped` variable gradients,
  // and the global step it saw (-1: unknown).
  void RecordStep(int64_t applied, int64_t dropped, int64_t global_step);
  // Changes the statistics under their lock.
  template <typename F>
  void UpdateStats(F&& change) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    change(stats_);
  }

 private:
  mutable std::mutex stats_mu_;  // guards stats_
  CoordinationStats stats_;
};

// INVALID_ARGUMENT naming `protocol` unless `replica` is usable: an
// optimizer, 1 <= num_workers, 0 <= worker_index < num_workers, and (when
// `needs_global_step`) an int64 global step variable.
Status ValidateReplicaContext(const std::string& protocol, const ReplicaContext& replica,
                              bool needs_global_step);

// The scalar a fetched step counter holds (int32 or int64), as int64.
int64_t ScalarAsInt64(const Tensor& t);

}  // namespace af
