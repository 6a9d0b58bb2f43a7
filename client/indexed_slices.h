// Sparse gradients (TensorFlow's IndexedSlices): the rows `values` of a
// tensor of shape `dense_shape` found at `indices` of its first dimension,
// every other row zero. A gather's gradient is one: an embedding step that
// reads k rows of a V-row table gets k rows back, not V.
//
// Rows may repeat (a gather that read a row twice); a repeated row stands
// for the sum of its copies. Adding several IndexedSlices concatenates
// them; only a consumer that needs one row per index (an optimizer's
// update) sums the repeats (DeduplicateSlices), and only a consumer that
// needs a tensor converts (ToDense).
//
//   std::vector<GradientValue> grads;
//   AF_RETURN_IF_ERROR(AddSymbolicGradients(root, {loss}, {table}, &grads));
//   if (grads[0].is_sparse()) ... grads[0].slices().indices ...
#pragma once

#include <optional>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"

namespace af {

struct IndexedSlices {
  Output values;       // [k, d1, ..., dn]
  Output indices;      // [k], int32 or int64
  Output dense_shape;  // [n + 1], int32 or int64: the whole tensor's shape
  // Known to hold no repeated index (a sparse accumulator's take, or
  // DeduplicateSlices' answer): an update need not deduplicate again.
  bool indices_unique = false;
};

// A gradient: a tensor, IndexedSlices, or none (an input nothing reaches).
class GradientValue {
 public:
  GradientValue() = default;
  GradientValue(const Output& dense) : dense_(dense) {}  // NOLINT: a tensor is a gradient
  GradientValue(const IndexedSlices& slices) : slices_(slices) {}  // NOLINT

  bool valid() const { return slices_.has_value() || dense_.valid(); }
  bool is_sparse() const { return slices_.has_value(); }
  // The tensor; invalid when sparse.
  const Output& dense() const { return dense_; }
  // The rows; only when is_sparse().
  const IndexedSlices& slices() const { return *slices_; }
  DataType type() const;

 private:
  Output dense_;
  std::optional<IndexedSlices> slices_;
};

// The tensor the gradient stands for: an UnsortedSegmentSum of the rows
// into dense_shape[0] rows (repeats add) when sparse, else the tensor.
Output ToDense(const Scope& scope, const GradientValue& grad);

// The sum of several gradients of one tensor: the rows of all of them
// concatenated when every one is sparse (indices cast to int64 when their
// types differ), else one AddN with the sparse ones converted.
Status AddGradients(const Scope& scope, const std::vector<GradientValue>& grads,
                    GradientValue* sum);

// One row per distinct index, the repeats summed (Unique, then
// UnsortedSegmentSum by the unique position); first-seen index order.
IndexedSlices DeduplicateSlices(const Scope& scope, const IndexedSlices& slices);

}  // namespace af
