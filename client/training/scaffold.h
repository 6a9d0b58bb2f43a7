// Scaffold: the ops a training session needs besides the model, as
// tf.train.Scaffold: how to initialize the variables, how to tell that
// they are ready, and the saver for checkpoints. Fields left unset get
// TensorFlow's defaults when the training session finalizes the scaffold
// (after the hooks' Begin, so that variables the hooks add are covered).
#pragma once

#include <memory>

#include "client/ops.h"
#include "client/saver.h"
#include "client/scope.h"
#include "core/status.h"

namespace af {

class ShardReplicas;

struct Scaffold {
  // Initializes the global variables (default: GlobalVariablesInitializer).
  Operation init_op;
  // Initializes the local variables, once the global ones are ready
  // (default: LocalVariablesInitializer when the graph has local variables).
  Operation local_init_op;
  // Names the variables still uninitialized; empty means the model is
  // ready (default: ReportUninitializedVariables over global and local
  // variables).
  Output ready_op;
  // The same for what local_init_op needs (default: the global variables).
  Output ready_for_local_init_op;
  // Saves and restores checkpoints (default: a sharded Saver over the
  // global variables, when the graph has any; none otherwise).
  std::shared_ptr<Saver> saver;
  // A serialized tensorflow.Summary the summary hook writes (optional).
  Output summary_op;
  // Copies of the ps shards on their neighbours (client/training/
  // shard_replicas.h): the chief restores a lost shard from them before
  // falling back to the checkpoint. Null: none (the default; a
  // MonitoredTrainingSession makes them with shard_replica_steps > 0).
  std::shared_ptr<ShardReplicas> replicas;

  // Fills the unset fields. Idempotent; errors are the scope's.
  Status Finalize(const Scope& scope);
  bool finalized() const { return finalized_; }

 private:
  bool finalized_ = false;
};

}  // namespace af
