// ReductionPlan: validates a reduction's axes against its input and views
// the input as few, large dimensions.
//
// Size-1 dims are dropped and neighbouring dims of the same kind (reduced or
// kept) are merged, so the input becomes an alternating list of groups, e.g.
// reducing axes {1, 2} of [4, 5, 6, 7] gives groups [4 | 30 | 7] (kept,
// reduced, kept): an (outer, reduced, inner) problem whose loops are tight.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"

namespace af {

class ReductionPlan {
 public:
  // `axes` is an int32 or int64 scalar or vector; negative values count from
  // the end. INVALID_ARGUMENT for a bad rank, an axis out of range or an axis
  // given twice.
  Status Init(const TensorShape& input, const Tensor& axes, bool keep_dims);

  const TensorShape& output_shape() const { return output_shape_; }
  // Input elements folded into each output element.
  int64_t reduced_count() const { return reduced_count_; }

  // Groups, outermost first; kinds alternate starting with first_reduced().
  int num_groups() const { return groups_.size(); }
  int64_t group_size(int g) const { return groups_[g]; }
  bool group_reduced(int g) const { return ((g & 1) == 0) == first_reduced_; }
  // Whether anything is actually combined (false when every reduced dim has
  // size 1: the output is the input reshaped).
  bool reduces() const;

 private:
  TensorShape output_shape_;
  int64_t reduced_count_ = 1;
  DimVector groups_;
  bool first_reduced_ = false;
};

// One fold of a reduction: out[o, i] = fold over r of in[o, r, i] for an
// [outer, rows, inner] source. `last` when no reduced group is left after it
// (its result is the output).
struct ReductionPass {
  int64_t outer = 1, rows = 1, inner = 1;
  bool last = true;
};

// The passes of a plan, one reduced group each, innermost first: every pass
// drops its group and merges the kept neighbours, so each source is the
// previous pass's result.
class ReductionPasses {
 public:
  explicit ReductionPasses(const ReductionPlan& plan);
  // The next pass; false when nothing is left to fold.
  bool Next(ReductionPass* pass);

 private:
  DimVector sizes_, reduced_;
};

}  // namespace af
