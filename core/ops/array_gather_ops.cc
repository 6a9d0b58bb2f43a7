// Ops that address elements by index: Gather, GatherV2, OneHot and the
// UnsortedSegment{Sum,Max,Min} reductions (Sum is Gather's gradient).
#include <vector>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::CanonicalAxis;
using array_shape::ConstantInt;
using array_shape::Dims;

Status GatherShape(InferenceContext* c) {
  PartialTensorShape params;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1, &params));
  const PartialTensorShape& indices = c->input(1);
  if (params.unknown_rank() || indices.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> out = Dims(indices);
  for (int d = 1; d < params.dims(); ++d) out.push_back(params.dim_size(d));
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext* c) {
  PartialTensorShape params;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1, &params));
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRankAtMost(2, 0, &ignored));
  const PartialTensorShape& indices = c->input(1);
  int64_t batch_dims = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("batch_dims", &batch_dims)));
  bool known = false;
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(ConstantInt(c, 2, "axis", &known, &axis));
  if (params.unknown_rank() || indices.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (batch_dims < 0) batch_dims += indices.dims();
  if (batch_dims < 0 || batch_dims > indices.dims())
    return c->InvalidArgument("batch_dims must be in [-", indices.dims(), ", ", indices.dims(),
                              "] for indices of rank ", indices.dims());
  if (!known) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(
                         static_cast<int>(params.dims() + indices.dims() - 1 - batch_dims)));
    return Status::OK();
  }
  int a = 0;
  AF_RETURN_IF_ERROR(CanonicalAxis(c, axis, params.dims(), "GatherV2 axis", &a));
  if (batch_dims > a)
    return c->InvalidArgument("batch_dims (", batch_dims, ") must be less than or equal to axis (",
                              a, ")");
  std::vector<int64_t> out;
  for (int d = 0; d < a; ++d) out.push_back(params.dim_size(d));
  for (int d = static_cast<int>(batch_dims); d < indices.dims(); ++d)
    out.push_back(indices.dim_size(d));
  for (int d = a + 1; d < params.dims(); ++d) out.push_back(params.dim_size(d));
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status OneHotShape(InferenceContext* c) {
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &ignored));
  AF_RETURN_IF_ERROR(c->WithRank(2, 0, &ignored));
  AF_RETURN_IF_ERROR(c->WithRank(3, 0, &ignored));
  int64_t axis = -1;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("axis", &axis)));
  if (axis < -1) return c->InvalidArgument("axis must be >= -1, got ", axis);
  const PartialTensorShape& indices = c->input(0);
  if (indices.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (axis > indices.dims())
    return c->InvalidArgument("Expected axis to be -1 or between [0, ", indices.dims() + 1,
                              ").  But received: ", axis);
  bool known = false;
  int64_t depth = -1;
  AF_RETURN_IF_ERROR(ConstantInt(c, 1, "depth", &known, &depth));
  if (known && depth < 0) return c->InvalidArgument("depth must be non-negative, got: ", depth);
  std::vector<int64_t> out = Dims(indices);
  out.insert(out.begin() + (axis < 0 ? indices.dims() : axis), known ? depth : -1);
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status UnsortedSegmentReductionShape(InferenceContext* c) {
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRank(2, 0, &ignored));
  const PartialTensorShape& data = c->input(0);
  const PartialTensorShape& ids = c->input(1);
  bool known = false;
  int64_t num = -1;
  AF_RETURN_IF_ERROR(ConstantInt(c, 2, "num_segments", &known, &num));
  if (known && num < 0)
    return c->InvalidArgument("Input num_segments == ", num, " must not be negative.");
  if (data.unknown_rank() || ids.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (ids.dims() > data.dims())
    return c->InvalidArgument("data.shape = ", data.DebugString(),
                              " does not start with segment_ids.shape = ", ids.DebugString());
  for (int d = 0; d < ids.dims(); ++d) {
    const int64_t a = data.dim_size(d), b = ids.dim_size(d);
    if (a >= 0 && b >= 0 && a != b)
      return c->InvalidArgument("data.shape = ", data.DebugString(),
                                " does not start with segment_ids.shape = ", ids.DebugString());
  }
  std::vector<int64_t> out = {known ? num : -1};
  for (int d = ids.dims(); d < data.dims(); ++d) out.push_back(data.dim_size(d));
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Gather")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("validate_indices: bool = true")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(GatherShape)
    .Doc("Rows of params (along dim 0) picked by indices.");

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Output("output: Tparams")
    .Attr("batch_dims: int = 0")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape)
    .Doc("Slices of params along axis picked by indices.");

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Output("output: T")
    .Attr("axis: int = -1")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape)
    .Doc("on_value where indices[...] == position along a new depth axis, else off_value.");

REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentReductionShape)
    .Doc("output[i] = sum of data rows whose segment id is i; negative ids are dropped.");

// Empty segments hold numeric_limits<T>::lowest() (Max) or max() (Min), as
// TensorFlow's kernels leave them.
REGISTER_OP("UnsortedSegmentMax")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentReductionShape)
    .Doc("output[i] = max of data rows whose segment id is i; negative ids are dropped.");

REGISTER_OP("UnsortedSegmentMin")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: realnumbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentReductionShape)
    .Doc("output[i] = min of data rows whose segment id is i; negative ids are dropped.");

}  // namespace af
