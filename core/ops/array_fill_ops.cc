// Ops that make tensors from a few scalars: Fill, ZerosLike, OnesLike and
// Range.
#include <cmath>
#include <cstdlib>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status FillShape(InferenceContext* c) {
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &ignored));
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &ignored));
  PartialTensorShape out;
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, std::move(out));
  return Status::OK();
}

// A scalar input's value as a double, if known.
bool ScalarValue(const InferenceContext* c, int input, double* value) {
  const Tensor* t = c->input_tensor(input);
  if (!t || t->NumElements() != 1) return false;
  switch (t->dtype()) {
    case DT_FLOAT:
      *value = t->data<float>()[0];
      return true;
    case DT_DOUBLE:
      *value = t->data<double>()[0];
      return true;
    case DT_INT32:
      *value = t->data<int32_t>()[0];
      return true;
    case DT_INT64:
      *value = static_cast<double>(t->data<int64_t>()[0]);
      return true;
    default:
      return false;
  }
}

Status RangeShape(InferenceContext* c) {
  PartialTensorShape ignored;
  for (int i = 0; i < 3; ++i) AF_RETURN_IF_ERROR(c->WithRank(i, 0, &ignored));
  double start, limit, delta;
  if (!ScalarValue(c, 0, &start) || !ScalarValue(c, 1, &limit) || !ScalarValue(c, 2, &delta)) {
    c->set_output(0, PartialTensorShape({-1}));
    return Status::OK();
  }
  if (delta == 0) return c->InvalidArgument("Requires delta != 0");
  if (delta > 0 && start > limit)
    return c->InvalidArgument("Requires start <= limit when delta > 0: ", start, "/", limit);
  if (delta < 0 && start < limit)
    return c->InvalidArgument("Requires start >= limit when delta < 0: ", start, "/", limit);
  DataType t;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("Tidx", &t)));
  const int64_t size =
      DataTypeIsInteger(t)
          ? (std::llabs(static_cast<int64_t>(limit) - static_cast<int64_t>(start)) +
             std::llabs(static_cast<int64_t>(delta)) - 1) /
                std::llabs(static_cast<int64_t>(delta))
          : static_cast<int64_t>(std::ceil(std::fabs((limit - start) / delta)));
  c->set_output(0, PartialTensorShape({size}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape)
    .Doc("A tensor of shape dims with every element equal to value.");

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("Zeros of x's shape and type.");

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, "
        "uint64, complex64, complex128, bool}")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("Ones of x's shape and type.");

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32} = "
        "DT_INT32")
    .SetShapeFn(RangeShape)
    .Doc("start, start + delta, ... up to (excluding) limit.");

}  // namespace af
