// Slicing: Slice (begin/size), StridedSlice (Python-style slices with
// masks) and StridedSliceGrad.
#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"
#include "core/strided_slice.h"

namespace af {
namespace {

using array_shape::ConstantInts;

Status SliceShape(InferenceContext* c) {
  PartialTensorShape begin_shape, size_shape;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &begin_shape));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &size_shape));
  const PartialTensorShape& in = c->input(0);
  bool begin_known = false, size_known = false;
  std::vector<int64_t> begin, size;
  AF_RETURN_IF_ERROR(ConstantInts(c, 1, &begin_known, &begin));
  AF_RETURN_IF_ERROR(ConstantInts(c, 2, &size_known, &size));

  int rank = in.dims();  // -1 if unknown
  for (const PartialTensorShape* s : {&begin_shape, &size_shape}) {
    const int64_t n = s->dim_size(0);
    if (n < 0) continue;
    if (rank >= 0 && n != rank)
      return c->InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ",
                                rank, ", but got shapes ", begin_shape.DebugString(), " and ",
                                size_shape.DebugString(), " instead.");
    rank = static_cast<int>(n);
  }
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (!size_known) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(rank));
    return Status::OK();
  }
  std::vector<int64_t> out(rank, -1);
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = in.unknown_rank() ? -1 : in.dim_size(i);
    const int64_t b = begin_known ? begin[i] : -1;
    if (size[i] < -1) return c->InvalidArgument("size[", i, "] = ", size[i], " must be >= -1");
    if (begin_known && b < 0)
      return c->InvalidArgument("begin[", i, "] = ", b, " must be non-negative");
    if (dim >= 0 && begin_known) {
      if (b > dim)
        return c->InvalidArgument("Expected begin[", i, "] in [0, ", dim, "], but got ", b);
      if (size[i] >= 0 && b + size[i] > dim)
        return c->InvalidArgument("Expected size[", i, "] in [0, ", dim - b, "], but got ",
                                  size[i]);
    }
    if (size[i] >= 0)
      out[i] = size[i];
    else if (dim >= 0 && begin_known)
      out[i] = dim - b;
  }
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status ReadMasks(const InferenceContext* c, StridedSliceSpec* spec) {
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("begin_mask", &spec->begin_mask)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("end_mask", &spec->end_mask)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("ellipsis_mask", &spec->ellipsis_mask)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("new_axis_mask", &spec->new_axis_mask)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("shrink_axis_mask", &spec->shrink_axis_mask)));
  return Status::OK();
}

// Input order: input, begin, end, strides. Without the strides' values (or
// the input's rank) nothing is known: the spec's masks and signs decide
// how many dims come out.
Status StridedSliceShape(InferenceContext* c) {
  PartialTensorShape begin_shape, end_shape, strides_shape;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &begin_shape));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &end_shape));
  AF_RETURN_IF_ERROR(c->WithRank(3, 1, &strides_shape));
  PartialTensorShape merged;
  Status lengths = begin_shape.MergeWith(end_shape, &merged);
  if (lengths.ok()) lengths = merged.MergeWith(strides_shape, &merged);
  if (!lengths.ok())
    return c->InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, "
        "but got shapes ",
        begin_shape.DebugString(), ", ", end_shape.DebugString(), ", and ",
        strides_shape.DebugString(), " instead.");
  const PartialTensorShape& in = c->input(0);
  bool begin_known = false, end_known = false, strides_known = false;
  std::vector<int64_t> begin, end, strides;
  AF_RETURN_IF_ERROR(ConstantInts(c, 1, &begin_known, &begin));
  AF_RETURN_IF_ERROR(ConstantInts(c, 2, &end_known, &end));
  AF_RETURN_IF_ERROR(ConstantInts(c, 3, &strides_known, &strides));
  if (in.unknown_rank() || !strides_known) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  StridedSliceSpec spec;
  AF_RETURN_IF_ERROR(ReadMasks(c, &spec));
  spec.sparse_dims = static_cast<int>(strides.size());
  spec.strides = strides.data();
  if (begin_known && end_known) {
    if (begin.size() != strides.size() || end.size() != strides.size())
      return c->InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors");
    spec.begin = begin.data();
    spec.end = end.data();
  }
  StridedSlicePlan plan;
  AF_RETURN_IF_ERROR(c->Error(ComputeStridedSlice(in.dim_sizes(), spec, &plan)));
  c->set_output(
      0, PartialTensorShape(std::vector<int64_t>(plan.final_dims.begin(), plan.final_dims.end())));
  return Status::OK();
}

Status StridedSliceGradShape(InferenceContext* c) {
  PartialTensorShape out;
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(SliceShape)
    .Doc("input[begin : begin + size] per dim; size -1 means to the end.");

REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape)
    .Doc("input[begin:end:strides] with Python's slice semantics.");

REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceGradShape)
    .Doc("Scatters dy into zeros of the given shape where StridedSlice read.");

}  // namespace af
