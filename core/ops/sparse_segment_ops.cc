// The sparse segment reductions: output[s] = reduce over the j with
// segment_ids[j] == s of data[indices[j]], with sorted segment ids. They are
// how an embedding bag (a sum, mean or sqrt-n mean of looked-up rows) is
// computed in one op, and their *Grad ops are the matching backward passes.
#include <vector>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::ConstantInt;

// [dim0] + data.shape[1:], or unknown when data's rank is.
PartialTensorShape RowsLike(const PartialTensorShape& data, int64_t dim0) {
  if (data.unknown_rank()) return PartialTensorShape::Unknown();
  std::vector<int64_t> out = {dim0};
  for (int d = 1; d < data.dims(); ++d) out.push_back(data.dim_size(d));
  return PartialTensorShape(out);
}

// data (input 0) at least a vector; indices (1) and segment_ids (2)
// vectors of one length.
Status CheckReductionInputs(InferenceContext* c, PartialTensorShape* data) {
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1, data));
  PartialTensorShape indices, ids, merged;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &indices));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &ids));
  return c->Merge(indices, ids, &merged);
}

// The row count input `input` (num_segments, output_dim0): a scalar whose
// value, when a constant gives it, must not be negative; -1 when unknown.
Status LeadingDimInput(InferenceContext* c, int input, const char* what, int64_t* dim0) {
  PartialTensorShape scalar;
  AF_RETURN_IF_ERROR(c->WithRank(input, 0, &scalar));
  bool known = false;
  int64_t value = -1;
  AF_RETURN_IF_ERROR(ConstantInt(c, input, what, &known, &value));
  if (known && value < 0) return c->InvalidArgument("Cannot specify a negative value for ", what);
  *dim0 = known ? value : -1;
  return Status::OK();
}

// Without num_segments the row count is the last segment id + 1, known
// only when the step runs.
Status SparseSegmentReductionShape(InferenceContext* c) {
  PartialTensorShape data;
  AF_RETURN_IF_ERROR(CheckReductionInputs(c, &data));
  c->set_output(0, RowsLike(data, -1));
  return Status::OK();
}

Status SparseSegmentReductionWithNumSegmentsShape(InferenceContext* c) {
  PartialTensorShape data;
  AF_RETURN_IF_ERROR(CheckReductionInputs(c, &data));
  int64_t num = -1;
  AF_RETURN_IF_ERROR(LeadingDimInput(c, 3, "num_segments", &num));
  c->set_output(0, RowsLike(data, num));
  return Status::OK();
}

// grad: [segments] + row shape; output: [output_dim0] + row shape.
Status SparseSegmentReductionGradShape(InferenceContext* c) {
  PartialTensorShape grad;
  AF_RETURN_IF_ERROR(CheckReductionInputs(c, &grad));
  int64_t dim0 = -1;
  AF_RETURN_IF_ERROR(LeadingDimInput(c, 3, "output_dim0", &dim0));
  c->set_output(0, RowsLike(grad, dim0));
  return Status::OK();
}

}  // namespace

// sparse_gradient (TensorFlow 2.15 on) asks TensorFlow's gradient for
// IndexedSlices through SparseSegment*GradV2. It is accepted so that such
// GraphDefs load; the gradient here is always the dense *Grad op's
// (client/gradients/sparse_grad.cc).
REGISTER_OP("SparseSegmentSum")
    .Input("data: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .Attr("sparse_gradient: bool = false")
    .SetShapeFn(SparseSegmentReductionShape)
    .Doc("output[s] = sum of data[indices[j]] over the j with segment_ids[j] == s (ids sorted).");

REGISTER_OP("SparseSegmentSumWithNumSegments")
    .Input("data: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .Attr("sparse_gradient: bool = false")
    .SetShapeFn(SparseSegmentReductionWithNumSegmentsShape)
    .Doc("SparseSegmentSum with num_segments output rows.");

REGISTER_OP("SparseSegmentSumGrad")
    .Input("grad: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Input("output_dim0: int32")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .SetShapeFn(SparseSegmentReductionGradShape)
    .Doc("output[indices[j]] += grad[segment_ids[j]]; output has output_dim0 rows.");

REGISTER_OP("SparseSegmentMean")
    .Input("data: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .Attr("sparse_gradient: bool = false")
    .SetShapeFn(SparseSegmentReductionShape)
    .Doc("SparseSegmentSum divided by each segment's row count.");

REGISTER_OP("SparseSegmentMeanWithNumSegments")
    .Input("data: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .Attr("sparse_gradient: bool = false")
    .SetShapeFn(SparseSegmentReductionWithNumSegmentsShape)
    .Doc("SparseSegmentMean with num_segments output rows.");

REGISTER_OP("SparseSegmentMeanGrad")
    .Input("grad: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Input("output_dim0: int32")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .SetShapeFn(SparseSegmentReductionGradShape)
    .Doc("output[indices[j]] += grad[segment_ids[j]] / (rows in segment segment_ids[j]).");

REGISTER_OP("SparseSegmentSqrtN")
    .Input("data: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .Attr("sparse_gradient: bool = false")
    .SetShapeFn(SparseSegmentReductionShape)
    .Doc("SparseSegmentSum divided by the square root of each segment's row count.");

REGISTER_OP("SparseSegmentSqrtNWithNumSegments")
    .Input("data: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .Attr("sparse_gradient: bool = false")
    .SetShapeFn(SparseSegmentReductionWithNumSegmentsShape)
    .Doc("SparseSegmentSqrtN with num_segments output rows.");

REGISTER_OP("SparseSegmentSqrtNGrad")
    .Input("grad: T")
    .Input("indices: Tidx")
    .Input("segment_ids: Tsegmentids")
    .Input("output_dim0: int32")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("Tsegmentids: {int32, int64} = DT_INT32")
    .SetShapeFn(SparseSegmentReductionGradShape)
    .Doc("output[indices[j]] += grad[segment_ids[j]] / sqrt(rows in segment segment_ids[j]).");

}  // namespace af
