// Gradients of the ops that address rows or elements by index: the sparse
// segment reductions, GatherNd and ScatterNd, UnsortedSegmentMax/Min, and
// DynamicPartition / DynamicStitch. Each sends the incoming gradient back
// along the same index map the forward op used; the index inputs get none.
#include "client/gradients/grad_helpers.h"
#include "client/gradients/grad_link.h"

namespace af {
namespace grad_link {
void SparseGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

// x.shape[0] as an int32 scalar: a constant when the graph knows it.
Output Dim0AsInt32(const Scope& s, const Output& x) {
  const PartialTensorShape shape = x.shape();
  if (shape.dims() >= 1 && shape.dim_size(0) >= 0)
    return ScalarOfType(s, DT_INT32, static_cast<double>(shape.dim_size(0)));
  auto first =
      ops::Slice(s, ops::Shape(s, x), IndexVector(s, DT_INT32, {0}), IndexVector(s, DT_INT32, {1}));
  return ops::Reshape(s, first, IndexVector(s, DT_INT32, {}));
}

// `mask` (shaped like ids) reshaped to ids.shape + [1] * (rank(data) -
// rank(ids)), so that it broadcasts against data's rows.
Output RowMask(const Scope& s, const Output& mask, const Output& ids, const Output& data) {
  const int data_rank = data.shape().dims();
  if (ids.shape().IsFullyDefined() && data_rank >= 0) {
    std::vector<int64_t> dims = Dims(ids.shape());
    dims.resize(data_rank, 1);
    return ops::Reshape(s, mask, IndexVector(s, DT_INT32, dims));
  }
  auto extra = ops::Reshape(s, ops::Sub(s, ops::Rank(s, data), ops::Rank(s, ids)),
                            IndexVector(s, DT_INT32, {1}));
  return ops::Reshape(s, mask, ops::ConcatV2(s, {ops::Shape(s, ids), ops::Fill(s, extra, 1)}, 0));
}

// ---- Sparse segment reductions ----

// data gets the *Grad op's dense [rows of data] + row-shape tensor;
// indices, segment_ids and num_segments get none. sparse_gradient (which
// makes TensorFlow return IndexedSlices) is not honoured: the gradient is
// always dense.
using SegmentGradBuilder = Output (*)(const Scope&, const Output& grad, const Output& indices,
                                      const Output& ids, const Output& dim0);

Output BuildSumGrad(const Scope& s, const Output& g, const Output& i, const Output& ids,
                    const Output& dim0) {
  return ops::SparseSegmentSumGrad(s, g, i, ids, dim0);
}
Output BuildMeanGrad(const Scope& s, const Output& g, const Output& i, const Output& ids,
                     const Output& dim0) {
  return ops::SparseSegmentMeanGrad(s, g, i, ids, dim0);
}
Output BuildSqrtNGrad(const Scope& s, const Output& g, const Output& i, const Output& ids,
                      const Output& dim0) {
  return ops::SparseSegmentSqrtNGrad(s, g, i, ids, dim0);
}

Status SparseSegmentGradCommon(const Scope& s, const Operation& op, const Grads& g, Grads* out,
                               SegmentGradBuilder build) {
  out->push_back(build(s, g[0], op.input(1), op.input(2), Dim0AsInt32(s, op.input(0))));
  for (int i = 1; i < op.num_inputs(); ++i) out->push_back(NoGradient());
  return s.status();
}

Status SparseSegmentSumGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return SparseSegmentGradCommon(s, op, g, out, BuildSumGrad);
}
Status SparseSegmentMeanGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return SparseSegmentGradCommon(s, op, g, out, BuildMeanGrad);
}
Status SparseSegmentSqrtNGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return SparseSegmentGradCommon(s, op, g, out, BuildSqrtNGrad);
}
REGISTER_GRADIENT_OP("SparseSegmentSum", SparseSegmentSumGradFn);
REGISTER_GRADIENT_OP("SparseSegmentSumWithNumSegments", SparseSegmentSumGradFn);
REGISTER_GRADIENT_OP("SparseSegmentMean", SparseSegmentMeanGradFn);
REGISTER_GRADIENT_OP("SparseSegmentMeanWithNumSegments", SparseSegmentMeanGradFn);
REGISTER_GRADIENT_OP("SparseSegmentSqrtN", SparseSegmentSqrtNGradFn);
REGISTER_GRADIENT_OP("SparseSegmentSqrtNWithNumSegments", SparseSegmentSqrtNGradFn);

// ---- GatherNd / ScatterNd ----

// Each gathered slice came from params at its index row: the gradient
// scatters it back there, summing rows gathered more than once. ScatterNd
// wants `shape` in the indices' type, which Shape has only for int32 and
// int64; int16 indices are widened.
Status GatherNdGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output params = op.input(0);
  Output indices = op.input(1);
  const DataType index_type = indices.type() == DT_INT64 ? DT_INT64 : DT_INT32;
  if (indices.type() != index_type) indices = ops::Cast(s, indices, index_type);
  auto shape = ops::Shape(s, params, ops::Shape::OutType(index_type));
  out->push_back(ops::ScatterNd(s, indices, g[0], shape));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("GatherNd", GatherNdGrad);

// Each update was added at its index row: it gets the gradient there.
Status ScatterNdGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(NoGradient());
  out->push_back(ops::GatherNd(s, g[0], op.input(0)));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("ScatterNd", ScatterNdGrad);

// ---- UnsortedSegmentMax / Min ----

// The gradient of a segment's output goes to the data entries that equal
// it, split evenly among ties; the rest (and rows with negative ids, which
// the op dropped) get 0. Gathers use ids clipped to 0 and are masked after.
Status UnsortedSegmentMinMaxGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output data = op.input(0), ids = op.input(1), num = op.input(2);
  const DataType dtype = data.type();
  auto kept = ops::GreaterEqual(s, ids, ScalarOfType(s, ids.type(), 0));
  auto safe_ids = ops::SelectV2(s, kept, ids, ops::ZerosLike(s, ids));
  auto row_kept = RowMask(s, kept, ids, data);
  auto output_at_data = ops::Gather(s, op.output(0), safe_ids);
  auto selected = ops::LogicalAnd(s, ops::Equal(s, data, output_at_data), row_kept);
  auto ties = ops::UnsortedSegmentSum(s, ops::Cast(s, selected, dtype), ids, num);
  // Segments with no data divide 0 by 0; nothing gathers their NaN.
  auto shares = ops::Gather(s, ops::Div(s, g[0], ties), safe_ids);
  out->push_back(ops::SelectV2(s, selected, shares, ops::ZerosLike(s, shares)));
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentMax", UnsortedSegmentMinMaxGrad);
REGISTER_GRADIENT_OP("UnsortedSegmentMin", UnsortedSegmentMinMaxGrad);

// ---- DynamicPartition / DynamicStitch ----

// Partitioning the positions 0..n-1 of the partitions tensor the same way
// says where each output row came from; stitching the output gradients by
// those positions puts every row's gradient back in data's order.
Status DynamicPartitionGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output data = op.input(0), partitions = op.input(1);
  int64_t num_partitions = 0;
  AF_RETURN_IF_ERROR(GetAttr(op, "num_partitions", &num_partitions));
  auto positions =
      ops::Reshape(s, ops::Range(s, 0, ops::Size(s, partitions), 1), ops::Shape(s, partitions));
  auto moved = ops::DynamicPartition(s, positions, partitions, num_partitions);
  AF_RETURN_IF_ERROR(s.status());
  auto stitched = ops::DynamicStitch(s, InputList(moved.outputs), InputList(g));
  out->push_back(ops::Reshape(s, stitched, ops::Shape(s, data)));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("DynamicPartition", DynamicPartitionGrad);

// data[m] gets the merged gradient at its indices[m]. Where an index
// repeats, only the last (m, i) reached the output, yet every repeat gets
// the gradient here: TensorFlow's gradient ignores that too, and this one
// matches it rather than masking the overridden entries.
Status DynamicStitchGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const int n = op.num_inputs() / 2;
  for (int m = 0; m < n; ++m) out->push_back(NoGradient());
  for (int m = 0; m < n; ++m) out->push_back(ops::Gather(s, g[0], op.input(m)));
  return s.status();
}
REGISTER_GRADIENT_OP("DynamicStitch", DynamicStitchGrad);
REGISTER_GRADIENT_OP("ParallelDynamicStitch", DynamicStitchGrad);

}  // namespace
}  // namespace grad
}  // namespace af
