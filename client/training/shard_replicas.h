// In-memory replicas of the parameter-server shards (issue 28): every
// global variable on ps task i gets a copy on the next ps task, i + 1 mod P,
// refreshed by the chief every N steps. When a ps task dies and comes back
// empty, the chief's next session restores that task's variables from
// their copies on the live neighbour, instead of rolling every variable of
// every task back to the last checkpoint. The checkpoint stays the fallback:
// when a shard's holder died too (or never took a copy), PrepareSession
// restores the checkpoint as before.
//
// The copies are plain variables on the neighbour ("<var>/replica"), kept
// out of every collection: never saved, never initialized by init_op, not
// part of the ready check. "replica_step/<task>" on the holder records the
// global step each refresh copied, so a restore can say what it went back
// to. TensorFlow has no equivalent; its ps variables come back only from
// checkpoints.
//
// A refresh reads the variables while steps may update them (as any
// asynchronous reader does): each copy is one variable's value at one
// moment, and the shard as a whole is at most one refresh interval behind.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/scope.h"
#include "client/training/session_run_hook.h"
#include "core/status.h"

namespace af {

// What RestoreLost did, one line per shard it brought back.
struct ReplicaRestore {
  struct Shard {
    std::string task;    // "/job:ps/task:1": the task whose variables came back
    std::string holder;  // the task that held their copies
    int64_t global_step = -1;  // the global step the copies were taken at
    int variables = 0;
  };
  std::vector<Shard> shards;
  std::vector<std::string> restored;  // variable names
};

class ShardReplicas {
 public:
  // The copies of the global variables of `scope`'s graph that live on
  // tasks of `ps_job`. Needs at least two such tasks (one task has no
  // neighbour): with fewer, *out stays null and the status is OK.
  static Status Build(const Scope& scope, std::shared_ptr<ShardReplicas>* out,
                      const std::string& ps_job = "ps");

  // Copies every variable to its neighbour, and the global step with them.
  Operation refresh_op() const { return refresh_; }
  // The ps tasks with replicated variables, in order.
  std::vector<std::string> tasks() const;

  // Restores the variables in `missing` (uninitialized, from the ready
  // check) whose shard has a copy on a live holder. Variables of shards
  // without one are left out of result->restored; the caller falls back to
  // the checkpoint for them.
  Status RestoreLost(ClientSession& session, const std::vector<std::string>& missing,
                     ReplicaRestore* result) const;

  // "/job:ps/task:1 from /job:ps/task:0 at global step 812 (12 variables)".
  static std::string Describe(const ReplicaRestore& restore);

 private:
  struct Shard {
    std::string holder;
    Output step_copy;     // replica_step/<task> on the holder
    Output step_copy_ready;  // IsVariableInitialized of it
    std::map<std::string, Operation> restore_ops;  // variable name -> Assign(var, copy)
  };
  Operation refresh_;
  std::map<std::string, Shard> shards_;  // by task
};

// Runs the replicas' refresh with the chief's step every `every_n_steps`
// steps, and once after each session creation (a restarted ps task has lost
// the copies it held for its neighbour).
class ShardReplicaHook : public SessionRunHook {
 public:
  ShardReplicaHook(std::shared_ptr<ShardReplicas> replicas, int64_t every_n_steps);
  Status AfterCreateSession(ClientSession& session) override;
  Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) override;

 private:
  std::shared_ptr<ShardReplicas> replicas_;
  int64_t every_n_steps_;
  int64_t steps_ = 0;
};

}  // namespace af
