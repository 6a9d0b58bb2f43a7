// Saver: saves and restores a graph's variables, as TensorFlow's
// tf.train.Saver. Constructing one adds to the graph a filename input, one
// SaveV2 over the variables and one RestoreV2 feeding an Assign per
// variable; Save and Restore run them with the checkpoint path fed.
//
//   Saver saver(root);                       // every global variable
//   std::string path;
//   AF_RETURN_IF_ERROR(saver.Save(session, "/ckpt/model", step, &path));
//   ...
//   std::string latest = LatestCheckpoint("/ckpt");
//   if (!latest.empty()) AF_RETURN_IF_ERROR(saver.Restore(session, latest));
//
// A checkpoint is TensorFlow's tensor bundle, `PREFIX.index` and
// `PREFIX.data-00000-of-00001` (or `PREFIX.afckpt` with
// ACTORFLOW_CHECKPOINT_FORMAT=afckpt; docs/checkpoint-format.md); Restore
// reads either. The directory's `checkpoint` file lists the kept ones
// (core/checkpoint_state.h).
//
// A partitioned variable's shards (client/partitioned_variable.h) are saved
// as slices of the whole, under the whole's name, so the checkpoint
// restores onto another number of shards, or onto one unpartitioned
// variable of that name; a variable saved whole restores onto shards too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/scope.h"
#include "core/checkpoint_write_format.h"
#include "core/status.h"
#include "core/tensor_shape.h"

namespace af {

struct SaverOptions {
  // Variables (VariableV2 ref outputs) to save; empty: GlobalVariables(scope).
  std::vector<Output> var_list;
  // Checkpoints kept in the directory; 0 or negative keeps all.
  int max_to_keep = 5;
  // Name scope of the nodes the saver adds ("save", then "save_1", ...).
  std::string name = "save";
  // TensorFlow's sharded=True: each device holding variables (each ps
  // task) writes its own bundle, PREFIX_temp/part-0000i-of-0000N, and a
  // MergeV2Checkpoints (on the last device's CPU, as TensorFlow places it)
  // merges them into PREFIX.index + PREFIX.data-0000i-of-0000N, TensorFlow's
  // layout. With ACTORFLOW_CHECKPOINT_FORMAT=afckpt each writes
  // PREFIX-0000i-of-0000N.afckpt and Save then writes PREFIX.afckpt as the
  // index of the shards (core/checkpoint_shards.h).
  // Restore reads any checkpoint, sharded or not, onto any placement. With
  // processes on several hosts, give an absolute prefix on a filesystem
  // they share (each task writes its shard itself).
  bool sharded = false;
};

class Saver {
 public:
  // A graph-building error (no variables, a var_list entry that is not a
  // variable, two variables with one name, a variable saved whole under
  // the name of a partitioned one, one slice twice) is recorded in the
  // scope, as for any op, and returned by status(), Save and Restore.
  explicit Saver(const Scope& scope, SaverOptions options = {});

  Status status() const { return status_; }

  // Writes every variable to `prefix` ("-<global_step>" appended when
  // global_step >= 0), records it as the latest checkpoint of the prefix's
  // directory and deletes the oldest ones beyond max_to_keep. An
  // uninitialized variable fails with FAILED_PRECONDITION naming it and
  // writes nothing. `written_path` (optional) gets the checkpoint's prefix.
  Status Save(ClientSession& session, const std::string& prefix, int64_t global_step,
              std::string* written_path);

  // Restores every variable from the checkpoint saved under `path` (a
  // prefix, as Save and LatestCheckpoint give). All or nothing: a missing
  // file is NOT_FOUND, a truncated or corrupt one DATA_LOSS, a missing
  // variable NOT_FOUND and a dtype or shape that does not match a variable
  // INVALID_ARGUMENT, each leaving every variable as it was.
  Status Restore(ClientSession& session, const std::string& path);

  // The graph the saver added, for running it by hand.
  const Output& filename_tensor() const { return filename_; }  // string scalar
  const Operation& save_op() const { return save_op_; }
  const Operation& restore_op() const { return restore_all_; }  // "restore_all"
  // The names the variables are saved under, in var_list order: the node
  // name, or a partitioned variable's full name for each of its shards.
  const std::vector<std::string>& tensor_names() const { return names_; }
  // Their slice specs ("" for a variable saved whole), as SaveV2 and
  // RestoreV2 get them.
  const std::vector<std::string>& shape_and_slices() const { return slices_; }

 private:
  // What Restore checks against a checkpoint's index before any Assign.
  struct SavedVariable {
    std::string name;
    DataType dtype = DT_INVALID;
    PartialTensorShape shape;  // the VariableV2's shape attr
    std::string slice;         // its slice spec; "" if saved whole
  };
  Status CollectVariables(const Scope& scope, const std::vector<Output>& var_list);
  void BuildGraph(const Scope& scope, const std::vector<Output>& var_list);
  void BuildShardedSave(const Scope& scope, const std::vector<Output>& var_list);
  Status CheckAgainstIndex(const std::string& path) const;

  SaverOptions options_;
  Status status_;
  std::vector<SavedVariable> variables_;
  std::vector<std::string> names_;
  std::vector<std::string> slices_;
  Output filename_;
  Operation save_op_;
  Operation restore_all_;
  int num_shards_ = 0;  // sharded: the shards Save writes
  // What SaveV2 writes (read from the environment when the saver is built).
  CheckpointWriteFormat format_ = CheckpointWriteFormat::kBundle;
  Output temp_prefix_;  // sharded bundle: where the shards go before merging
};

// The newest checkpoint recorded in `dir`'s `checkpoint` file, as a prefix
// for Saver::Restore; "" if there is none or its file is gone. (The
// Status-returning form is core/checkpoint_state.h's LatestCheckpoint.)
std::string LatestCheckpoint(const std::string& dir);

}  // namespace af
