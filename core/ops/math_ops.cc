// Element-wise arithmetic, comparison and logical ops, AddN and MatMul.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// TensorFlow's type lists for the element-wise families.
constexpr const char* kBinaryMoreTypes =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
    "complex64, complex128, uint32, uint64}";
constexpr const char* kMinMaxTypes =
    "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, "
    "uint64}";
constexpr const char* kUnaryTypes =
    "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}";
constexpr const char* kUnaryUnsignedTypes =
    "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, "
    "uint64, complex64, complex128}";

// With incompatible_shape_error=false, shapes that do not broadcast give a
// scalar answer at run time, so nothing is known about the output.
Status EqualityShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("incompatible_shape_error", &incompatible_shape_error)));
  Status s = shape_fn::BroadcastBinaryOp(c);
  if (!s.ok() && !incompatible_shape_error) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  return s;
}

}  // namespace

REGISTER_OP("Add")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
          "complex128, string}")
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, "
          "int32, int64, complex64, complex128}")
    .SetIsAggregate()
    .SetIsCommutative()
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Sub").Input("x: T").Input("y: T").Output("z: T").Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Mul").Input("x: T").Input("y: T").Output("z: T").Attr(kBinaryMoreTypes)
    .SetIsCommutative()
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Div").Input("x: T").Input("y: T").Output("z: T").Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("RealDiv").Input("x: T").Input("y: T").Output("z: T").Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Maximum").Input("x: T").Input("y: T").Output("z: T").Attr(kMinMaxTypes)
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Minimum").Input("x: T").Input("y: T").Output("z: T").Attr(kMinMaxTypes)
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Less").Input("x: T").Input("y: T").Output("z: bool").Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("LessEqual").Input("x: T").Input("y: T").Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Greater").Input("x: T").Input("y: T").Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("GreaterEqual").Input("x: T").Input("y: T").Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Equal").Input("x: T").Input("y: T").Output("z: bool")
    .SetIsCommutative()
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn(EqualityShape);

REGISTER_OP("NotEqual").Input("x: T").Input("y: T").Output("z: bool")
    .SetIsCommutative()
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn(EqualityShape);

REGISTER_OP("LogicalAnd").Input("x: bool").Input("y: bool").Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("LogicalOr").Input("x: bool").Input("y: bool").Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("LogicalNot").Input("x: bool").Output("y: bool")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("Neg").Input("x: T").Output("y: T").Attr(kUnaryTypes)
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("Square").Input("x: T").Output("y: T").Attr(kUnaryUnsignedTypes)
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(shape_fn::MergeAllInputs);

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
          "int8, int16, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(shape_fn::MatMulShape);

}  // namespace af
