#include "client/indexed_slices.h"

#include "client/gradients/grad_helpers.h"
#include "client/standard_ops.h"

namespace af {

DataType GradientValue::type() const {
  return slices_ ? slices_->values.type() : dense_.type();
}

namespace {

// dense_shape[0] as a scalar: the number of rows the slices index into.
Output NumRows(const Scope& scope, const Output& dense_shape) {
  auto first = ops::Slice(scope, dense_shape, grad::IndexVector(scope, DT_INT32, {0}),
                          grad::IndexVector(scope, DT_INT32, {1}));
  return ops::Reshape(scope, first, grad::IndexVector(scope, DT_INT32, {}));
}

}  // namespace

Output ToDense(const Scope& scope, const GradientValue& grad) {
  if (!grad.is_sparse()) return grad.dense();
  const IndexedSlices& s = grad.slices();
  return ops::UnsortedSegmentSum(scope, s.values, s.indices, NumRows(scope, s.dense_shape));
}

Status AddGradients(const Scope& scope, const std::vector<GradientValue>& grads,
                    GradientValue* sum) {
  AF_RETURN_IF_ERROR(scope.status());
  if (grads.empty()) {
    *sum = GradientValue();
    return Status::OK();
  }
  if (grads.size() == 1) {
    *sum = grads[0];
    return Status::OK();
  }
  bool all_sparse = true;
  for (const GradientValue& g : grads) all_sparse = all_sparse && g.is_sparse();
  if (!all_sparse) {
    std::vector<Output> dense;
    for (const GradientValue& g : grads) dense.push_back(ToDense(scope, g));
    *sum = ops::AddN(scope, OutputList(dense)).sum;
    return scope.status();
  }
  bool same_index_type = true;
  for (const GradientValue& g : grads)
    same_index_type = same_index_type && g.slices().indices.type() == grads[0].slices().indices.type();
  std::vector<Output> values, indices;
  for (const GradientValue& g : grads) {
    values.push_back(g.slices().values);
    indices.push_back(same_index_type ? g.slices().indices
                                      : ops::Cast(scope, g.slices().indices, DT_INT64));
  }
  const Output axis = grad::ScalarOfType(scope, DT_INT32, 0);
  IndexedSlices joined;
  joined.values = ops::ConcatV2(scope, OutputList(values), axis);
  joined.indices = ops::ConcatV2(scope, OutputList(indices), axis);
  joined.dense_shape = grads[0].slices().dense_shape;
  *sum = joined;
  return scope.status();
}

IndexedSlices DeduplicateSlices(const Scope& scope, const IndexedSlices& slices) {
  auto unique = ops::Unique(scope, slices.indices);
  IndexedSlices out;
  out.indices = unique.y;
  out.values = ops::UnsortedSegmentSum(scope, slices.values, unique.idx, ops::Size(scope, unique.y));
  out.dense_shape = slices.dense_shape;
  out.indices_unique = true;
  return out;
}

}  // namespace af
