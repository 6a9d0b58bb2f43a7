// Element-wise arithmetic, comparison and logical ops, Select, Cast, AddN
// and MatMul. Reductions live in reduction_ops.cc, batched and linear-algebra
// matrix ops in matrix_ops.cc.
#include <vector>

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
constexpr const char* kUnaryComplexTypes =
    "T: {bfloat16, half, float, double, complex64, complex128}";

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

// Select (TensorFlow 1): `t` and `e` share a shape; `condition` is a
// scalar, has that shape too, or is a vector matching their first dim.
Status SelectShape(InferenceContext* c) {
  PartialTensorShape data;
  AF_RETURN_IF_ERROR(c->Merge(c->input(1), c->input(2), &data));
  const PartialTensorShape& cond = c->input(0);
  if (cond.unknown_rank() || data.unknown_rank() || cond.dims() == 0) {
    c->set_output(0, data);
    return Status::OK();
  }
  if (cond.dims() != 1 || data.dims() == 0) {
    // Element-wise: condition must have the data's shape.
    AF_RETURN_IF_ERROR(c->Merge(data, cond, &data));
    c->set_output(0, data);
    return Status::OK();
  }
  // A vector condition picks whole slices along dim 0.
  const int64_t want = cond.dim_size(0), have = data.dim_size(0);
  if (want >= 0 && have >= 0 && want != have)
    return c->InvalidArgument("condition of shape ", cond.DebugString(),
                              " must match the first dimension of t and e ",
                              data.DebugString());
  if (have < 0 && want >= 0) {
    std::vector<int64_t> dims(data.dim_sizes().begin(), data.dim_sizes().end());
    dims[0] = want;
    data = PartialTensorShape(dims);
  }
  c->set_output(0, data);
  return Status::OK();
}

// SelectV2: condition, t and e broadcast together.
Status SelectV2Shape(InferenceContext* c) {
  PartialTensorShape values, out;
  AF_RETURN_IF_ERROR(c->BroadcastBinary(c->input(1), c->input(2), &values));
  AF_RETURN_IF_ERROR(c->BroadcastBinary(c->input(0), values, &out));
  c->set_output(0, std::move(out));
  return Status::OK();
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

REGISTER_OP("FloorDiv").Input("x: T").Input("y: T").Output("z: T").Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("FloorMod").Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, "
          "double}")
    .SetShapeFn(shape_fn::BroadcastBinaryOp);

REGISTER_OP("Pow").Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128}")
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

REGISTER_OP("Abs").Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64}")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("Sign").Input("x: T").Output("y: T").Attr(kUnaryTypes)
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("Reciprocal").Input("x: T").Output("y: T").Attr(kUnaryTypes)
    .SetShapeFn(shape_fn::UnchangedShape);

// Inv is Reciprocal's older name; graphs still carry it.
REGISTER_OP("Inv").Input("x: T").Output("y: T").Attr(kUnaryTypes)
    .SetShapeFn(shape_fn::UnchangedShape);

#define AF_FLOAT_UNARY_OP(NAME)                                                  \
  REGISTER_OP(NAME).Input("x: T").Output("y: T").Attr(kUnaryComplexTypes) \
      .SetShapeFn(shape_fn::UnchangedShape)
AF_FLOAT_UNARY_OP("Sqrt");
AF_FLOAT_UNARY_OP("Rsqrt");
AF_FLOAT_UNARY_OP("Exp");
AF_FLOAT_UNARY_OP("Log");
AF_FLOAT_UNARY_OP("Log1p");
AF_FLOAT_UNARY_OP("Tanh");
AF_FLOAT_UNARY_OP("Sigmoid");
#undef AF_FLOAT_UNARY_OP

// Gradient helpers: z = dy * f'(x) written in terms of y = f(x).
#define AF_UNARY_GRAD_OP(NAME)                                                             \
  REGISTER_OP(NAME).Input("y: T").Input("dy: T").Output("z: T").Attr(kUnaryComplexTypes) \
      .SetShapeFn(shape_fn::UnchangedShape)
AF_UNARY_GRAD_OP("SigmoidGrad");
AF_UNARY_GRAD_OP("TanhGrad");
AF_UNARY_GRAD_OP("SqrtGrad");
AF_UNARY_GRAD_OP("RsqrtGrad");
AF_UNARY_GRAD_OP("ReciprocalGrad");
AF_UNARY_GRAD_OP("InvGrad");
#undef AF_UNARY_GRAD_OP

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape);

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape);

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
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
