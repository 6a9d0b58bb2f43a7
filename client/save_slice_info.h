// Where a variable sits inside a larger logical one (TensorFlow's
// Variable.SaveSliceInfo): a partitioned variable's shard
// (client/partitioned_variable.h) is saved as this slice of the whole under
// the whole's name, so a checkpoint restores onto any other partitioning.
// The Saver finds it through Scope::FindSaveSliceInfo.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace af {

struct SaveSliceInfo {
  std::string full_name;  // the checkpoint key of the whole
  std::vector<int64_t> full_shape, var_offset, var_shape;
  // TensorFlow's slice spec: "<full dims> <off>,<len>:<off>,<len>...",
  // e.g. "10 4 4,3:0,4" (core/tensor_slice_spec.h).
  std::string Spec() const;
};

// Parses a slice spec ("-" stands for a whole dim) into the full shape and
// each dim's offset and length. INVALID_ARGUMENT for anything else,
// the empty spec (TensorFlow's "the whole tensor") included.
Status ParseSliceSpec(const std::string& spec, std::vector<int64_t>* full_shape,
                      std::vector<int64_t>* offset, std::vector<int64_t>* length);

}  // namespace af
