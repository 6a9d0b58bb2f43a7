// Array ops: constants, placeholders and identity-like pass-throughs.
#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "core/tensor_shape_proto.h"

namespace af {
namespace {

// Reads the shape from the constant's TensorProto without decoding values.
Status ConstShape(InferenceContext* c) {
  const tensorflow::TensorProto* proto = nullptr;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("value", &proto)));
  DataType dtype;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("dtype", &dtype)));
  if (static_cast<DataType>(proto->dtype()) != dtype)
    return c->InvalidArgument("value has type ",
                              DataTypeString(static_cast<DataType>(proto->dtype())),
                              " but attr dtype is ", DataTypeString(dtype));
  TensorShape shape;
  Status s = ShapeFromProto(proto->tensor_shape(), &shape);
  if (!s.ok()) return c->InvalidArgument("value has an invalid shape: ", s.message());
  c->set_output(0, shape);
  return Status::OK();
}

// The output promises only the attr's shape, which the default input must
// be able to take.
Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("shape", &shape)));
  if (!shape.IsCompatibleWith(c->input(0)))
    return c->InvalidArgument("default input of shape ", c->input(0).DebugString(),
                              " is not compatible with the shape attr ", shape.DebugString());
  c->set_output(0, std::move(shape));
  return Status::OK();
}

Status IdentityNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape)
    .Doc("A constant tensor: the value attr.");

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(shape_fn::ShapeFromShapeAttr)
    .Doc("A value that must be fed when the graph runs.");

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape)
    .Doc("Its input when not fed.");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("Passes its input through.");

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type)")
    .SetShapeFn(IdentityNShape)
    .Doc("Passes a list of tensors through.");

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("Identity that blocks gradients.");

REGISTER_OP("PreventGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("message: string = ''")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("Identity whose gradient is an error.");

REGISTER_OP("Snapshot")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("A copy of its input.");

}  // namespace af
