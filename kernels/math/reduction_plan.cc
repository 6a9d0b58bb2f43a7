#include "kernels/math/reduction_plan.h"

namespace af {

Status ReductionPlan::Init(const TensorShape& input, const Tensor& axes, bool keep_dims) {
  if (axes.dims() > 1)
    return errors::InvalidArgument("reduction_indices must be a scalar or vector, got shape ",
                                   axes.shape().DebugString());
  if (axes.dtype() != DT_INT32 && axes.dtype() != DT_INT64)
    return errors::InvalidArgument("reduction_indices must be int32 or int64, not ",
                                   DataTypeString(axes.dtype()));
  const int rank = input.dims();
  // reduced[d] is 1 where input dim d is reduced.
  DimVector reduced;
  reduced.resize(rank, 0);
  for (int64_t i = 0; i < axes.NumElements(); ++i) {
    const int64_t axis = axes.dtype() == DT_INT32 ? int64_t{axes.data<int32_t>()[i]}
                                                  : axes.data<int64_t>()[i];
    if (axis < -rank || axis >= rank)
      return errors::InvalidArgument("Invalid reduction dimension (", axis, ") for input with ",
                                     rank, " dimension(s)");
    const int d = static_cast<int>(axis < 0 ? axis + rank : axis);
    if (reduced[d])
      return errors::InvalidArgument(
          "Invalid reduction arguments: Axes contains duplicate dimension: ", d);
    reduced[d] = 1;
  }

  output_shape_ = TensorShape();
  reduced_count_ = 1;
  groups_.clear();
  bool last_kind = false;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim_size(d);
    const bool is_reduced = reduced[d] != 0;
    if (is_reduced) {
      reduced_count_ *= size;
      if (keep_dims) output_shape_.AddDim(1);
    } else {
      output_shape_.AddDim(size);
    }
    if (size == 1) continue;  // moves nothing
    if (!groups_.empty() && last_kind == is_reduced) {
      groups_[groups_.size() - 1] *= size;
    } else {
      if (groups_.empty()) first_reduced_ = is_reduced;
      groups_.push_back(size);
      last_kind = is_reduced;
    }
  }
  return Status::OK();
}

bool ReductionPlan::reduces() const {
  for (int g = 0; g < num_groups(); ++g)
    if (group_reduced(g)) return true;
  return false;
}

ReductionPasses::ReductionPasses(const ReductionPlan& plan) {
  for (int g = 0; g < plan.num_groups(); ++g) {
    sizes_.push_back(plan.group_size(g));
    reduced_.push_back(plan.group_reduced(g) ? 1 : 0);
  }
}

bool ReductionPasses::Next(ReductionPass* pass) {
  int j = sizes_.size() - 1;
  while (j >= 0 && !reduced_[j]) --j;
  if (j < 0) return false;
  int64_t outer = 1, inner = 1;
  for (int g = 0; g < j; ++g) outer *= sizes_[g];
  for (int g = j + 1; g < sizes_.size(); ++g) inner *= sizes_[g];
  pass->outer = outer;
  pass->rows = sizes_[j];
  pass->inner = inner;
  // Drop group j; its kept neighbours become one group.
  if (j + 1 < sizes_.size() && j > 0) {
    sizes_[j - 1] *= sizes_[j + 1];
    sizes_.erase(j + 1);
    reduced_.erase(j + 1);
  }
  sizes_.erase(j);
  reduced_.erase(j);
  bool last = true;
  for (int g = 0; g < reduced_.size(); ++g) last = last && !reduced_[g];
  pass->last = last;
  return true;
}

}  // namespace af
