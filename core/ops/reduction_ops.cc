// Reductions over axes given as an input tensor: Sum, Mean, Prod, Max, Min,
// and the index-returning ArgMax, ArgMin.
#include <cstdint>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

bool IsIndexType(DataType dt) { return dt == DT_INT16 || dt == DT_INT32 || dt == DT_INT64; }

// Element i of an int16/int32/int64 tensor.
int64_t IndexValue(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT16: return t.data<int16_t>()[i];
    case DT_INT32: return t.data<int32_t>()[i];
    default: return t.data<int64_t>()[i];
  }
}

// The input's shape with the reduced dims dropped (or kept as 1). Needs the
// axes' values; without them only keep_dims fixes the rank.
Status ReductionShape(InferenceContext* c) {
  bool keep_dims = false;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("keep_dims", &keep_dims)));
  PartialTensorShape axes_shape;
  AF_RETURN_IF_ERROR(c->WithRankAtMost(1, 1, &axes_shape));
  const PartialTensorShape& input = c->input(0);
  const Tensor* axes = c->input_tensor(1);
  if (axes == nullptr || input.unknown_rank()) {
    c->set_output(0, keep_dims && !input.unknown_rank()
                         ? PartialTensorShape::UnknownOfRank(input.dims())
                         : PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (!IsIndexType(axes->dtype()))
    return c->InvalidArgument("reduction_indices must be an integer, not ",
                              DataTypeString(axes->dtype()));
  const int rank = input.dims();
  std::vector<bool> reduced(rank, false);
  // Repeated axes are the kernel's error to report (as in TensorFlow); the
  // shape is the same either way.
  for (int64_t i = 0; i < axes->NumElements(); ++i) {
    const int64_t axis = IndexValue(*axes, i);
    if (axis < -rank || axis >= rank)
      return c->InvalidArgument("Invalid reduction dimension ", axis, " for input with ", rank,
                                " dimensions.");
    reduced[axis < 0 ? axis + rank : axis] = true;
  }
  PartialTensorShape out(TensorShape{});
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) out.AddDim(input.dim_size(d));
    else if (keep_dims) out.AddDim(1);
  }
  c->set_output(0, std::move(out));
  return Status::OK();
}

// ArgMax/ArgMin: the input's shape without `dimension`; vectors and scalars
// reduce to a scalar.
Status ArgReductionShape(InferenceContext* c) {
  PartialTensorShape dimension_shape;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &dimension_shape));
  const PartialTensorShape& input = c->input(0);
  if (input.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  const int rank = input.dims();
  if (rank <= 1) {
    c->set_output(0, PartialTensorShape(TensorShape{}));
    return Status::OK();
  }
  const Tensor* dimension = c->input_tensor(1);
  if (dimension == nullptr) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(rank - 1));
    return Status::OK();
  }
  if (!IsIndexType(dimension->dtype()))
    return c->InvalidArgument("dimension must be an integer, not ",
                              DataTypeString(dimension->dtype()));
  const int64_t value = IndexValue(*dimension, 0);
  const int64_t axis = value < 0 ? value + rank : value;
  if (axis < 0 || axis >= rank)
    return c->InvalidArgument("Dimension (", value, ") must be in the range [", -rank, ", ",
                              rank, "), where ", rank,
                              " is the number of dimensions in the input.");
  PartialTensorShape out(TensorShape{});
  for (int d = 0; d < rank; ++d)
    if (d != axis) out.AddDim(input.dim_size(d));
  c->set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace

#define AF_REDUCTION_OP(NAME, TYPES)               \
  REGISTER_OP(NAME)                                \
      .Input("input: T")                           \
      .Input("reduction_indices: Tidx")            \
      .Output("output: T")                         \
      .Attr("keep_dims: bool = false")             \
      .Attr(TYPES)                                 \
      .Attr("Tidx: {int32, int64} = DT_INT32")     \
      .SetShapeFn(ReductionShape)
AF_REDUCTION_OP("Sum", "T: numbertype");
AF_REDUCTION_OP("Mean", "T: numbertype");
AF_REDUCTION_OP("Prod", "T: numbertype");
AF_REDUCTION_OP("Max", "T: {realnumbertype, quantizedtype}");
AF_REDUCTION_OP("Min", "T: {realnumbertype, quantizedtype}");
#undef AF_REDUCTION_OP

#define AF_ARG_REDUCTION_OP(NAME)                                \
  REGISTER_OP(NAME)                                              \
      .Input("input: T")                                         \
      .Input("dimension: Tidx")                                  \
      .Output("output: output_type")                             \
      .Attr("T: {numbertype, bool}")                             \
      .Attr("Tidx: {int16, int32, int64} = DT_INT32")            \
      .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64") \
      .SetShapeFn(ArgReductionShape)
AF_ARG_REDUCTION_OP("ArgMax");
AF_ARG_REDUCTION_OP("ArgMin");
#undef AF_ARG_REDUCTION_OP

}  // namespace af
