// StridedSlice's index arithmetic, shared by the op's shape function (dims
// and spec values possibly unknown) and its kernels (everything known).
//
// A spec is "sparse": begin/end/strides entries that may include an
// ellipsis (expands to as many full dims as needed), new axes (insert a
// size-1 dim) and shrinks (index one element and drop the dim). Resolving
// it against the input's rank gives a "dense" spec with one entry per
// input dim; that entry's canonical begin, stride and element count are
// what the kernels walk. The rules are TensorFlow's (which are Python's
// for slices): with a positive stride begin and end clamp to [0, dim],
// with a negative one to [-1, dim - 1]; a masked begin/end means "from the
// first/last element in the stride's direction".
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor_shape.h"

namespace af {

struct StridedSliceSpec {
  int sparse_dims = 0;               // length of begin/end/strides
  const int64_t* begin = nullptr;    // nullptr: values unknown
  const int64_t* end = nullptr;      // nullptr: values unknown
  const int64_t* strides = nullptr;  // required
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
};

struct StridedSlicePlan {
  // One entry per input dim: elements taken (-1 unknown; 1 for a shrunk
  // dim), first index taken and step between taken indices. begin is only
  // meaningful where both begin and end values were known.
  DimVector processing_dims;
  DimVector begin;
  DimVector strides;
  // The output's dims: processing_dims without shrunk dims, with new axes.
  DimVector final_dims;
  // Every dim taken whole with stride 1: the output is the input reshaped.
  bool is_identity = true;
};

// Resolves `spec` against an input of dims `input_dims` (-1 = unknown dim).
// INVALID_ARGUMENT for zero strides, several ellipses, more indices than
// the input has dims, a shrink index out of range or a shrink with a
// negative stride. Messages name no node; callers add it.
Status ComputeStridedSlice(const DimVector& input_dims, const StridedSliceSpec& spec,
                           StridedSlicePlan* plan);

}  // namespace af
