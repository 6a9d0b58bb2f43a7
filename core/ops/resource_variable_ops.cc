// Resource variables (TensorFlow 2's variables): a VarHandleOp outputs a
// DT_RESOURCE handle naming the variable; reads, assignments and scatters
// take that handle. TensorFlow's names, inputs, attrs and defaults.
//
// The handle carries no shape here (TensorFlow keeps the VarHandleOp's
// dtype and shape beside the handle for shape inference), so what a read
// or gather outputs has an unknown shape until it runs.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// The handle input must be a scalar.
Status HandleIsScalar(InferenceContext* c) {
  PartialTensorShape unused;
  return c->WithRank(0, 0, &unused);
}

Status ScalarHandleNoOutputs(InferenceContext* c) { return HandleIsScalar(c); }

Status ScalarHandleUnknownOutput(InferenceContext* c) {
  AF_RETURN_IF_ERROR(HandleIsScalar(c));
  return shape_fn::UnknownShape(c);
}

}  // namespace

REGISTER_OP("VarHandleOp")
    .Output("resource: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("A handle to the resource variable (container, shared_name); an empty shared_name "
         "means the node's name. The variable exists once something assigns it.");

REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleUnknownOutput)
    .Doc("The variable's current value; a later assignment does not change it.");

REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("variable = value, creating the variable on first use. The value may change the "
         "variable's shape unless validate_shape.");

REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("variable += value.");

REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("variable -= value.");

REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("Whether the variable exists and has a value.");

REGISTER_OP("DestroyResourceOp")
    .Input("resource: resource")
    .Attr("ignore_lookup_error: bool = true")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("Deletes the resource the handle names; later uses fail.");

REGISTER_OP("DisableCopyOnRead")
    .Input("resource: resource")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("Turns off a variable's copy-on-read mode; reads here always share the value and "
         "updates copy when a reader still holds it, so this does nothing.");

REGISTER_OP("VariableShape")
    .Input("input: resource")
    .Output("output: out_type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      AF_RETURN_IF_ERROR(HandleIsScalar(c));
      c->set_output(0, PartialTensorShape::UnknownOfRank(1));
      return Status::OK();
    })
    .Doc("The variable's current shape (what a gather's gradient needs for its dense_shape).");

REGISTER_OP("ResourceGather")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Output("output: dtype")
    .Attr("batch_dims: int = 0")
    .Attr("validate_indices: bool = true")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleUnknownOutput)
    .Doc("output[i, ...] = variable[indices[i], ...].");

REGISTER_OP("ResourceScatterAdd")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Input("updates: dtype")
    .Attr("dtype: numbertype")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("variable[indices[i], ...] += updates[i, ...]; duplicate indices add up.");

REGISTER_OP("ResourceScatterUpdate")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Input("updates: dtype")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ScalarHandleNoOutputs)
    .Doc("variable[indices[i], ...] = updates[i, ...].");

}  // namespace af
