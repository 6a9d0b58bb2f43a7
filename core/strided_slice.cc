#include "core/strided_slice.h"

#include <algorithm>

namespace af {
namespace {

// Entries of the output's dim list that are not input dims.
constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrinkAxis = -2;

bool Bit(int32_t mask, int i) { return i < 32 && ((static_cast<uint32_t>(mask) >> i) & 1u) != 0; }

// The spec with one entry per input dim; `gather` lists, per output dim,
// the input dim it comes from (or kNewAxis / kShrinkAxis).
struct DenseSpec {
  DimVector begin, end, strides;
  DimVector begin_masked, end_masked, shrink;  // 0 or 1 per input dim
  DimVector gather;
};

Status BuildDenseSpec(int rank, const StridedSliceSpec& spec, DenseSpec* dense) {
  const int32_t ellipsis = spec.ellipsis_mask;
  if ((ellipsis & (ellipsis - 1)) != 0)
    return errors::InvalidArgument("Multiple ellipses in slice spec not allowed");

  int ellipsis_pos = -1;
  for (int i = 0; i < spec.sparse_dims; ++i)
    if (Bit(ellipsis, i)) ellipsis_pos = i;
  // Without an ellipsis the dims the spec leaves out are taken whole, as if
  // an ellipsis followed the last entry.
  int entries = spec.sparse_dims;
  if (ellipsis_pos < 0) ellipsis_pos = entries++;
  int new_axes_after_ellipsis = 0;
  for (int i = ellipsis_pos + 1; i < spec.sparse_dims; ++i)
    if (Bit(spec.new_axis_mask, i)) ++new_axes_after_ellipsis;

  dense->begin.resize(rank, 0);
  dense->end.resize(rank, 0);
  dense->strides.resize(rank, 1);
  dense->begin_masked.resize(rank, 0);
  dense->end_masked.resize(rank, 0);
  dense->shrink.resize(rank, 0);
  dense->gather.clear();

  int full = 0;
  for (int i = 0; i < entries; ++i) {
    if (i == ellipsis_pos) {
      // Entries after the ellipsis that index input dims claim the last dims.
      const int next = std::min(rank - (entries - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) {
        dense->begin_masked[full] = dense->end_masked[full] = 1;
        dense->gather.push_back(full);
      }
      continue;
    }
    if (Bit(spec.new_axis_mask, i)) {
      dense->gather.push_back(kNewAxis);
      continue;
    }
    if (full == rank) {
      if (rank == 0) return errors::InvalidArgument("Attempting to slice scalar input.");
      return errors::InvalidArgument("Index out of range using input dim ", full,
                                     "; input has only ", rank, " dims");
    }
    dense->begin[full] = spec.begin ? spec.begin[i] : 0;
    dense->end[full] = spec.end ? spec.end[i] : 0;
    dense->strides[full] = spec.strides[i];
    dense->begin_masked[full] = Bit(spec.begin_mask, i);
    dense->end_masked[full] = Bit(spec.end_mask, i);
    if (Bit(spec.shrink_axis_mask, i)) {
      dense->shrink[full] = 1;
      dense->gather.push_back(kShrinkAxis);
    } else {
      dense->gather.push_back(full);
    }
    ++full;
  }
  return Status::OK();
}

// Elements in [begin, end) stepping by stride (any signs), 0 if none.
int64_t IntervalCount(int64_t length, int64_t stride) {
  if (length == 0 || ((length < 0) != (stride < 0))) return 0;
  return length / stride + (length % stride != 0 ? 1 : 0);
}

}  // namespace

Status ComputeStridedSlice(const DimVector& input_dims, const StridedSliceSpec& spec,
                           StridedSlicePlan* plan) {
  if (spec.strides == nullptr)
    return errors::InvalidArgument("StridedSlice needs the strides to resolve a slice");

  const int rank = input_dims.size();
  DenseSpec dense;
  AF_RETURN_IF_ERROR(BuildDenseSpec(rank, spec, &dense));
  const bool values_known = spec.begin != nullptr && spec.end != nullptr;

  plan->processing_dims.clear();
  plan->begin.clear();
  plan->strides.clear();
  plan->is_identity = true;
  for (int i = 0; i < rank; ++i) {
    int64_t begin = dense.begin[i], end = dense.end[i];
    const int64_t stride = dense.strides[i];
    const int64_t dim = input_dims[i];
    const bool shrink = dense.shrink[i] != 0;
    if (stride == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
    plan->strides.push_back(stride);
    if (dim < 0) {
      plan->processing_dims.push_back(shrink ? 1 : -1);
      plan->begin.push_back(0);
      plan->is_identity = false;
      continue;
    }
    if (shrink && stride <= 0)
      return errors::InvalidArgument("only stride 1 allowed on non-range indexing.");

    const bool begin_masked = dense.begin_masked[i] != 0;
    const bool end_masked = dense.end_masked[i] != 0;
    // Indices a slice may start or stop at, in the stride's direction.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (stride > 0) == is_begin ? lo : hi;
      const int64_t forward = x < 0 ? dim + x : x;
      return std::clamp(forward, lo, hi);
    };

    int64_t length = 0;
    bool known = true;
    if (values_known) {
      if (shrink) {
        const int64_t forward = begin < 0 ? dim + begin : begin;
        if (forward < 0 || forward >= dim)
          return errors::InvalidArgument("slice index ", begin, " of dimension ", i,
                                         " out of bounds.");
        begin = forward;
        end = forward + 1;
      } else {
        begin = canonical(begin, begin_masked, true);
        end = canonical(end, end_masked, false);
      }
      plan->is_identity &= stride == 1 && begin == 0 && end == dim;
      length = end - begin;
    } else {
      plan->is_identity &= stride == 1 && begin_masked && end_masked;
      if (shrink) {
        length = 1;
      } else if (begin_masked && end_masked) {
        length = stride < 0 ? -dim : dim;
        begin = stride < 0 ? dim - 1 : 0;
      } else {
        known = false;
      }
    }
    plan->begin.push_back(begin);
    plan->processing_dims.push_back(known ? IntervalCount(length, stride) : -1);
  }

  plan->final_dims.clear();
  for (int64_t g : dense.gather) {
    if (g >= 0)
      plan->final_dims.push_back(plan->processing_dims[static_cast<int>(g)]);
    else if (g == kNewAxis)
      plan->final_dims.push_back(1);
  }
  return Status::OK();
}

}  // namespace af
