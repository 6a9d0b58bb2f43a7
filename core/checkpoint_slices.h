// Partitioned variables in checkpoints. SaveV2 stores a tensor given with a
// slice spec (core/tensor_slice_spec.h) as its own entry, keyed by the
// whole tensor's name, '@', and the canonical spec: "emb@10 4 4,3:0,4".
// No node name contains '@', so such a key never clashes with a variable's,
// and the slices of "emb" are exactly the keys starting "emb@" (adjacent
// in a file's sorted index). The slices of one tensor may lie in several
// shard files of a sharded checkpoint.
//
// Restoring asks for any region of the whole: it is assembled from every
// saved piece that overlaps it (the slices, or the tensor saved whole), so a
// variable saved in 4 shards restores onto 2, onto 8, or unpartitioned.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/allocator.h"
#include "core/checkpoint_format.h"
#include "core/checkpoint_reader.h"
#include "core/checkpoint_shards.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_slice_spec.h"

namespace af {

inline constexpr char kSliceKeyMarker = '@';

// "<name>@<canonical spec>".
std::string SliceKey(std::string_view name, const TensorSliceSpec& slice);

// One saved piece of a tensor: a slice entry, or the tensor saved whole
// (then `slice` is all of it).
struct SavedPiece {
  const CheckpointReader* reader = nullptr;
  const checkpoint::TensorEntry* entry = nullptr;
  TensorSliceSpec slice;
};

// What restoring one tensor reads, worked out from the index alone.
struct SliceRestorePlan {
  std::string name;
  std::string spec;  // as requested ("" for the whole)
  DataType dtype = DT_INVALID;
  TensorSliceSpec region;          // the requested part of the whole
  std::vector<SavedPiece> pieces;  // the saved pieces that overlap it
};

// Plans restoring `name` (the part `spec` selects, "" for all of it) as
// `dtype`. A whole entry of that name is used if there is one, else its
// slices. Errors name the tensor, the request and what the checkpoint
// holds: NOT_FOUND when nothing is saved under `name` or the saved slices
// leave part of the request uncovered; INVALID_ARGUMENT for a bad spec, a
// dtype or full shape that differs from the saved one, or saved slices
// that disagree on the full shape; DATA_LOSS for a slice key or entry that
// does not make sense.
Status PlanSliceRestore(const CheckpointSet& checkpoint, const std::string& name,
                        const std::string& spec, DataType dtype, SliceRestorePlan* plan);

// Reads the planned pieces (checking their CRCs) and copies the requested
// region out of them into a new tensor from `allocator` (CPU if null).
Status ExecuteSliceRestore(const SliceRestorePlan& plan, Allocator* allocator, Tensor* out);

}  // namespace af
