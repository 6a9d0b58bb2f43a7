// State ops: variables and the assignments that update them through
// reference edges (TensorFlow's names, inputs, attrs and defaults).
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// Output = the variable's shape merged with the value's, unless the op may
// change the variable's shape (Assign with validate_shape=false).
Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  if (c->GetAttr("validate_shape", &validate_shape).ok() && !validate_shape) {
    c->set_output(0, c->input(1));
    return Status::OK();
  }
  PartialTensorShape merged;
  AF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
  c->set_output(0, std::move(merged));
  return Status::OK();
}

// updates.shape must be indices.shape + ref.shape[1:] (or a scalar).
Status ScatterShape(InferenceContext* c) {
  const PartialTensorShape& ref = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  const PartialTensorShape& updates = c->input(2);
  c->set_output(0, ref);
  if (ref.unknown_rank() || indices.unknown_rank() || updates.unknown_rank()) return Status::OK();
  if (updates.dims() == 0) return Status::OK();
  if (ref.dims() == 0) return c->InvalidArgument("ref must be at least 1-D");
  PartialTensorShape want;
  want = indices;
  for (int d = 1; d < ref.dims(); ++d) want.AddDim(ref.dim_size(d));
  if (!want.IsCompatibleWith(updates))
    return c->InvalidArgument("updates.shape ", updates.DebugString(),
                              " must be indices.shape + ref.shape[1:] = ", want.DebugString());
  return Status::OK();
}

}  // namespace

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ShapeFromShapeAttr)
    .Doc("A variable: a tensor kept across steps in a named container.");

REGISTER_OP("Variable")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ShapeFromShapeAttr)
    .Doc("VariableV2's older name.");

REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("Whether the variable has been assigned a value.");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn(AssignShape)
    .Doc("ref = value; initializes an uninitialized variable.");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(AssignShape)
    .Doc("ref += value.");

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(AssignShape)
    .Doc("ref -= value.");

REGISTER_OP("ScatterUpdate")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = true")
    .SetShapeFn(ScatterShape)
    .Doc("ref[indices[i], ...] = updates[i, ...].");

REGISTER_OP("ScatterAdd")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ScatterShape)
    .Doc("ref[indices[i], ...] += updates[i, ...]; duplicate indices add up.");

REGISTER_OP("ScatterSub")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ScatterShape)
    .Doc("ref[indices[i], ...] -= updates[i, ...]; duplicate indices add up.");

REGISTER_OP("CountUpTo")
    .Input("ref: Ref(T)")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("Increments a scalar variable and returns its old value until it reaches limit.");

}  // namespace af
