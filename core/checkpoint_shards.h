// Sharded .afckpt checkpoints (ACTORFLOW_CHECKPOINT_FORMAT=afckpt; a tensor
// bundle merges its shards with MergeV2Checkpoints instead, as TensorFlow
// does, core/bundle/bundle_merge.h). Each device
// that holds variables (a parameter-server task) saves its own shard,
// PREFIX-00000-of-00002.afckpt, on its own disk (shared with the chief on
// a real cluster, as TensorFlow assumes); the chief then writes PREFIX.afckpt
// as the checkpoint's index, a checkpoint whose one tensor, "_shards",
// lists the shard prefixes (no variable can have that name: node names
// never start with '_'). Restoring reads each variable from whichever
// shard holds it, so a checkpoint saved over two ps tasks restores onto
// three, or onto one process.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/checkpoint_reader.h"
#include "core/status.h"

namespace af {

inline constexpr std::string_view kShardListKey = "_shards";

// "PREFIX-00001-of-00003" (TensorFlow's ShardedFilename).
std::string ShardedPrefix(std::string_view prefix, int shard, int num_shards);

// Writes PREFIX.afckpt listing `num_shards` shards of `prefix`, after
// checking that every shard file exists and opens; atomic, like any
// checkpoint.
Status WriteShardIndex(const std::string& prefix, int num_shards);

// A checkpoint as one set of tensors, sharded or not.
class CheckpointSet {
 public:
  // NOT_FOUND if the checkpoint (or one of its shards) is missing,
  // DATA_LOSS if a file is corrupt.
  static Status Open(const std::string& prefix, std::unique_ptr<CheckpointSet>* out);

  // The reader holding `name` and its entry; nullptr if no shard has it.
  const checkpoint::TensorEntry* Find(std::string_view name,
                                      const CheckpointReader** reader) const;
  // Every entry whose name starts with `prefix`, from every shard (the
  // slices of one variable may lie in several), with the reader holding it.
  struct Found {
    const CheckpointReader* reader = nullptr;
    const checkpoint::TensorEntry* entry = nullptr;
  };
  std::vector<Found> FindWithPrefix(std::string_view prefix) const;
  // The index file (PREFIX.afckpt, or the V1 file), for messages.
  const std::string& path() const { return path_; }
  // Shard prefixes (empty for an unsharded checkpoint).
  const std::vector<std::string>& shards() const { return shard_prefixes_; }
  // One reader per file holding tensors (a bundle: one for all its data).
  const std::vector<std::unique_ptr<CheckpointReader>>& readers() const { return readers_; }

 private:
  std::string path_;
  std::vector<std::string> shard_prefixes_;
  std::vector<std::unique_ptr<CheckpointReader>> readers_;
};

// The files of the checkpoint at `prefix`: its shards' files, then its own
// (a tensor bundle's: its data files, then PREFIX.index).
Status CheckpointFiles(const std::string& prefix, std::vector<std::string>* files);

}  // namespace af
