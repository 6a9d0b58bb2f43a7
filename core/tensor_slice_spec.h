// TensorFlow's slice spec, the `shape_and_slices` strings of SaveV2 and
// RestoreV2: the full tensor's dims, then one "offset,length" (or "-" for
// the whole dim) per dim joined by ':', e.g. "10 4 4,3:-" is rows 4..6 of a
// [10, 4] tensor. Partitioned variables save each shard as such a slice of
// the whole (core/checkpoint_slices.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace af {

struct TensorSliceSpec {
  std::vector<int64_t> full_shape;
  std::vector<int64_t> offset;  // one per dim, like `length`
  std::vector<int64_t> length;

  bool operator==(const TensorSliceSpec& other) const = default;
  int64_t NumElements() const;
};

// INVALID_ARGUMENT, quoting `spec`, unless it has at least one dim, one
// slice per dim, and every slice lies inside its dim. An empty spec (the
// whole tensor) is not a slice spec: callers handle "" themselves.
Status ParseTensorSliceSpec(std::string_view spec, TensorSliceSpec* out);

// The canonical text: every dim as "offset,length" (never "-"), so that
// equal slices give equal strings (they are part of checkpoint keys).
std::string TensorSliceSpecString(const TensorSliceSpec& slice);

// "[0,3)x[4,6)": a region for messages.
std::string TensorSliceRegionString(const std::vector<int64_t>& offset,
                                    const std::vector<int64_t>& length);

}  // namespace af
