// The checkpoints of a directory: the `checkpoint` file names the latest
// one and those still kept, in TensorFlow's text syntax
// (model_checkpoint_path / all_model_checkpoint_paths), so that a Saver can
// find the newest checkpoint and keep only the last K.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace af {

// TensorFlow's CheckpointState proto, in its text format: strings quoted
// with C escapes (protobuf's: \n \t \" \\ ... and 3-digit octal for other
// bytes outside printable ASCII; the reader also takes \x hex and
// single quotes).
struct CheckpointState {
  std::string latest;            // prefix, relative to the directory or absolute
  std::vector<std::string> all;  // oldest first; includes `latest`
  // Seconds since the epoch each of `all` was saved (TensorFlow's
  // all_model_checkpoint_timestamps); empty, or one per entry of `all`.
  std::vector<double> all_timestamps;
  double last_preserved_timestamp = 0;  // 0: absent
};

// A string as protobuf's text format quotes it, and back (false for a
// malformed literal).
std::string QuoteTextFormat(const std::string& s);
bool UnquoteTextFormat(std::string_view text, std::string* out);

// NOT_FOUND without a state file; DATA_LOSS if it does not parse.
Status ReadCheckpointState(const std::string& dir, CheckpointState* state);
// Replaces the state file atomically.
Status WriteCheckpointState(const std::string& dir, const CheckpointState& state);

// The latest checkpoint's prefix, joined to `dir` when relative.
// NOT_FOUND if the directory has no state file or it names no checkpoint.
Status LatestCheckpoint(const std::string& dir, std::string* prefix);

// Records `prefix` (a checkpoint just written in `dir`) as the latest and,
// when keep_last > 0, deletes the files of all but the newest keep_last
// checkpoints. The state file is rewritten before anything is deleted, so it
// never names a deleted checkpoint. `deleted` (optional) gets the prefixes
// removed.
Status RecordCheckpoint(const std::string& dir, const std::string& prefix, int keep_last,
                        std::vector<std::string>* deleted = nullptr);

// Removes the files of the checkpoint saved under `prefix`; NOT_FOUND if
// there are none.
Status DeleteCheckpointFiles(const std::string& prefix);

// A directory's latest checkpoint, a prefix, or a checkpoint file: the
// checkpoint file it designates (what `actorflow checkpoint inspect` takes).
Status ResolveCheckpointPath(const std::string& dir_or_prefix, std::string* file);

}  // namespace af
