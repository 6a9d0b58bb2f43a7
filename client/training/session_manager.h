// Bringing a fresh session to a trainable state, as TensorFlow's
// SessionManager: the chief initializes the variables or restores them
// from the latest checkpoint; the other workers wait until the chief has
// done so. Both run again after every recovery, which is how a ps task
// that lost its variables gets them back.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/scope.h"
#include "client/training/shard_replicas.h"
#include "client/training/scaffold.h"
#include "client/training/training_log.h"
#include "core/status.h"

namespace af {

// The names the report op `ready` gives in `session` (empty: all ready).
Status UninitializedVariables(ClientSession& session, const Output& ready,
                              std::vector<std::string>* names);

// "w (on /job:ps/task:0), b (on /job:ps/task:1)": the names with the
// devices their variables were asked for in the scope's graph.
std::string NamesWithDevices(const Scope& scope, const std::vector<std::string>& names);

// What PrepareSession did to the global variables.
struct PrepareResult {
  enum Action { kAlreadyReady, kRestored, kInitialized, kRestoredFromReplicas };
  Action action = kAlreadyReady;
  std::string checkpoint;  // kRestored: the checkpoint's prefix
  std::vector<std::string> were_uninitialized;  // what the check before found
  ReplicaRestore replicas;  // kRestoredFromReplicas: the shards brought back
};

// The chief's part. Variables all initialized (a fresh process of the
// chief joining live ps tasks, or a worker that was lost while the ps
// tasks kept their state): nothing to do. Otherwise, with the scaffold's
// shard replicas, restores the lost variables from their copies on live ps
// tasks; what that leaves uninitialized comes from the newest checkpoint in
// `checkpoint_dir` when there is one (every variable, so that the model is
// of one moment), else from init_op.
// Then runs local_init_op if local variables lack values. A model still
// not ready afterwards is FAILED_PRECONDITION naming the variables.
Status PrepareSession(const Scope& scope, ClientSession& session, const Scaffold& scaffold,
                      const std::string& checkpoint_dir, PrepareResult* result);

struct WaitOptions {
  std::chrono::steady_clock::time_point deadline;
  // Checks start 50 ms apart and double up to this.
  std::chrono::milliseconds max_backoff{1000};
  // Who waits, for the message ("/job:worker/task:1").
  std::string task;
};

// The other workers' part: checks ready_for_local_init_op with backoff
// until it names no variable (a failing check, UNAVAILABLE while the ps
// task restarts, counts as not ready), then runs local_init_op if needed.
// Past the deadline: DEADLINE_EXCEEDED naming the task and the variables
// still uninitialized with their devices (or the last check's error).
Status WaitForSession(const Scope& scope, ClientSession& session, const Scaffold& scaffold,
                      const WaitOptions& options);

}  // namespace af
