// MonitoredTrainingSession: a training loop that survives dying processes,
// in the shape of TensorFlow's tf.train.MonitoredTrainingSession.
//
//   MonitoredTrainingSessionOptions o;
//   o.session.cluster = cluster;            // ps tasks hold the variables
//   o.is_chief = (task == 0);
//   o.checkpoint_dir = "/shared/ckpt";
//   o.save_checkpoint_steps = 100;
//   o.hooks = {StopAtStepHook::AtStep(10000)};
//   std::unique_ptr<MonitoredTrainingSession> session;
//   AF_RETURN_IF_ERROR(MonitoredTrainingSession::Create(root, o, &session));
//   while (!session->ShouldStop()) {
//     Status s = session->Run({{x, batch}}, {loss}, {train}, &out);
//     if (errors::IsOutOfRange(s)) break;  // input exhausted
//     AF_RETURN_IF_ERROR(s);
//   }
//   AF_RETURN_IF_ERROR(session->Close());
//
// Creating it runs the hooks' Begin, fills the scaffold's defaults, starts
// a session (waiting for the cluster), and brings the variables to life:
// the chief restores the newest checkpoint of checkpoint_dir or initializes
// them; every other worker waits (up to wait_for_init_ms) until the chief
// has. Run runs one step with the hooks' additions. A step that fails with
// UNAVAILABLE or ABORTED (a task lost or restarted), or with
// FAILED_PRECONDITION while variables turned uninitialized (a restarted ps
// task that the master took back), is recovered: the session is re-created,
// the chief restores the newest checkpoint when the variables were lost,
// the others wait for it, and the step runs again; Run returns only the
// retried step's result. Recoveries are logged (what failed, what was done,
// the time lost) and counted; one that does not succeed within
// recovery_deadline_ms returns its error.
//
// One thread at a time: Run calls are serialized.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "client/client_session.h"
#include "client/scope.h"
#include "client/session.h"
#include "client/summary_writer.h"
#include "client/training/scaffold.h"
#include "client/training/session_run_hook.h"
#include "client/training/training_log.h"
#include "core/status.h"

namespace af {

struct MonitoredTrainingSessionOptions {
  // The sessions this training session creates (cluster, timeouts,
  // heartbeats). setup_timeout_ms bounds each attempt to reach the cluster.
  SessionOptions session;
  // The chief initializes or restores variables and runs the chief-only
  // hooks (checkpoints, summaries, step counter).
  bool is_chief = true;
  // Where checkpoints and event files go; empty: neither is written and
  // nothing is restored.
  std::string checkpoint_dir;
  // Checkpoints every N global steps, or else every S seconds (0 and 0:
  // no checkpoint hook).
  int64_t save_checkpoint_steps = 0;
  double save_checkpoint_secs = 600;
  // The scaffold's summary_op, every N global steps or S seconds (needs a
  // summary_op or summary_scalars).
  int64_t save_summaries_steps = 100;
  double save_summaries_secs = 0;
  // (tag, float scalar) pairs the summary hook writes besides summary_op.
  std::vector<std::pair<std::string, Output>> summary_scalars;
  // Global steps per second logged (and written as a summary) every N
  // global steps; 0: off.
  int64_t log_step_count_steps = 100;
  // The chief copies each ps task's variables to the next ps task every N
  // of its steps, and restores a lost task's variables from those copies
  // instead of the checkpoint (client/training/shard_replicas.h); 0: off.
  int64_t shard_replica_steps = 0;
  // Hooks of every worker, then hooks of the chief only; run after the
  // built-in ones, in order.
  std::vector<std::shared_ptr<SessionRunHook>> hooks;
  std::vector<std::shared_ptr<SessionRunHook>> chief_only_hooks;
  // Null: every default (client/training/scaffold.h).
  std::shared_ptr<Scaffold> scaffold;
  // How long a non-chief waits for the chief to initialize the variables
  // (TensorFlow's max_wait_secs, 2 hours).
  int64_t wait_for_init_ms = 2 * 60 * 60 * 1000;
  // Bound on one recovery, from the failed step to the re-created session
  // (TensorFlow retries for ever).
  int64_t recovery_deadline_ms = 10 * 60 * 1000;
  // Retries (reaching the cluster, checking readiness) start 50 ms apart
  // and double up to this.
  int64_t max_backoff_ms = 1000;
  // This task's name in log lines and errors ("/job:worker/task:1");
  // empty: "the chief" or "this worker".
  std::string task_name;
  TrainingLog log;  // empty: stderr
};

// One recovery, for logs and tests.
struct RecoveryRecord {
  Status cause;          // the error that started it
  double seconds = 0;    // the time lost: from the failed step to its retry done
  int attempts = 0;      // sessions created (failed ones included)
  // What the new session needed: "restored <checkpoint> (uninitialized:
  // ...)", "initialized the variables", "variables intact", or, for a
  // non-chief, "the variables are initialized".
  std::string action;
};

class MonitoredTrainingSession {
 public:
  using FeedType = ClientSession::FeedType;

  // `scope` is the graph's root scope; the graph must be complete but for
  // what the hooks and the scaffold add.
  static Status Create(const Scope& scope, MonitoredTrainingSessionOptions options,
                       std::unique_ptr<MonitoredTrainingSession>* out);
  ~MonitoredTrainingSession();  // Close(), its error lost
  MonitoredTrainingSession(const MonitoredTrainingSession&) = delete;
  MonitoredTrainingSession& operator=(const MonitoredTrainingSession&) = delete;

  // One step: `outputs` gets one tensor per fetch (may be null). An
  // OUT_OF_RANGE step (input exhausted) is returned and makes ShouldStop()
  // true.
  Status Run(const FeedType& feeds, const std::vector<Output>& fetches,
             const std::vector<Operation>& targets, std::vector<Tensor>* outputs);
  Status Run(const std::vector<Output>& fetches, std::vector<Tensor>* outputs) {
    return Run(FeedType{}, fetches, {}, outputs);
  }
  // With TensorFlow's options and metadata (a trace, the step's traffic
  // between tasks): `run_metadata` (may be null) describes the step that
  // succeeded, after any recovery.
  Status Run(const RunOptions& run_options, const FeedType& feeds,
             const std::vector<Output>& fetches, const std::vector<Operation>& targets,
             std::vector<Tensor>* outputs, RunMetadata* run_metadata);

  // True once a hook asked to stop (StopAtStepHook), a step ran out of
  // input, or the session closed. Safe to call while another thread runs.
  bool ShouldStop() const;

  // Runs the hooks' End (unless a step failed for good) and closes the
  // session. Later Runs fail with FAILED_PRECONDITION.
  Status Close();

  // Successful recoveries so far, and their records.
  int recoveries() const;
  std::vector<RecoveryRecord> recovery_records() const;

  // The current session (re-created by recoveries); null when closed.
  ClientSession* session() const { return session_.get(); }
  const Scaffold& scaffold() const { return *scaffold_; }

 private:
  MonitoredTrainingSession(const Scope& scope, MonitoredTrainingSessionOptions options);
  Status Initialize();
  void AddBuiltInHooks();
  // Creates a session and prepares it (chief: init/restore; others: wait),
  // retrying transient failures until `deadline`.
  Status CreateSession(std::chrono::steady_clock::time_point deadline, RecoveryRecord* record);
  Status CreateSessionOnce(std::chrono::steady_clock::time_point deadline,
                           std::string* action);
  // One step with the hooks around it.
  Status RunWithHooks(const RunOptions& run_options, const FeedType& feeds,
                      const std::vector<Output>& fetches, const std::vector<Operation>& targets,
                      std::vector<Tensor>* outputs, RunMetadata* run_metadata);
  // Whether `s` from a step means a lost or restarted task.
  bool IsRecoverable(const Status& s);
  std::string Who() const;

  Scope scope_;
  MonitoredTrainingSessionOptions options_;
  std::shared_ptr<Scaffold> scaffold_;
  std::vector<std::shared_ptr<SessionRunHook>> hooks_;  // built-in first
  std::shared_ptr<SummaryWriter> writer_;               // chief with a checkpoint_dir
  std::unique_ptr<ClientSession> session_;

  std::mutex mu_;  // Run, Close
  std::atomic<bool> should_stop_{false};
  bool closed_ = false;
  // The last step's error when it was not recovered (End is then skipped,
  // as TensorFlow skips it when an exception leaves the session), or why
  // the last recovery failed.
  Status failed_;
  mutable std::mutex records_mu_;  // guards recoveries_
  std::vector<RecoveryRecord> recoveries_;
};

}  // namespace af
