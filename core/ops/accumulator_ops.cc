// Gradient accumulator ops (TensorFlow's data_flow_ops): ConditionalAccumulator,
// SparseConditionalAccumulator and the ops that use them, with TensorFlow's
// names, inputs, outputs, attrs and defaults. As with queues, the TF1 ops
// pass the accumulator as a Ref(string) [container, name]; the Resource*
// ops (dense only, as in TensorFlow) as a resource handle.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status TwoElementOutput(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({2}));
  return Status::OK();
}

// Input `input` (local_step, new_global_step, num_required) is a scalar.
Status ScalarInput(InferenceContext* c, int input) {
  PartialTensorShape unused;
  return c->WithRank(input, 0, &unused);
}

Status ScalarSecondInputNoOutputs(InferenceContext* c) {
  AF_RETURN_IF_ERROR(ScalarInput(c, 1));
  return shape_fn::NoOutputs(c);
}

// The result's shape is the accumulator's, which the take op cannot see.
Status TakeGradientShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(ScalarInput(c, 1));
  return shape_fn::UnknownShape(c);
}

Status SparseTakeGradientShape(InferenceContext* c) {
  AF_RETURN_IF_ERROR(ScalarInput(c, 1));
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, PartialTensorShape());
  c->set_output(2, PartialTensorShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("ConditionalAccumulator")
    .Output("handle: Ref(string)")
    .Attr("dtype: numbertype")
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("Accumulates gradients of the current global step; a take waits for enough of them.");

REGISTER_OP("ResourceConditionalAccumulator")
    .Output("handle: resource")
    .Attr("dtype: numbertype")
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("Accumulates gradients of the current global step; a take waits for enough of them.");

REGISTER_OP("SparseConditionalAccumulator")
    .Output("handle: Ref(string)")
    .Attr("dtype: numbertype")
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("Accumulates sparse gradients (IndexedSlices); a take averages each row over the "
         "gradients that held it.");

REGISTER_OP("AccumulatorNumAccumulated")
    .Input("handle: Ref(string)")
    .Output("num_accumulated: int32")
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("The number of gradients the accumulator holds.");

REGISTER_OP("ResourceAccumulatorNumAccumulated")
    .Input("handle: resource")
    .Output("num_accumulated: int32")
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("The number of gradients the accumulator holds.");

REGISTER_OP("AccumulatorSetGlobalStep")
    .Input("handle: Ref(string)")
    .Input("new_global_step: int64")
    .SetShapeFn(ScalarSecondInputNoOutputs)
    .Doc("Sets the accumulator's global step; a smaller one is set too, with a warning.");

REGISTER_OP("ResourceAccumulatorSetGlobalStep")
    .Input("handle: resource")
    .Input("new_global_step: int64")
    .SetShapeFn(ScalarSecondInputNoOutputs)
    .Doc("Sets the accumulator's global step; a smaller one is set too, with a warning.");

REGISTER_OP("AccumulatorApplyGradient")
    .Input("handle: Ref(string)")
    .Input("local_step: int64")
    .Input("gradient: dtype")
    .Attr("dtype: numbertype")
    .SetShapeFn(ScalarSecondInputNoOutputs)
    .Doc("Adds a gradient, unless its local_step is below the global step (then it is dropped).");

REGISTER_OP("ResourceAccumulatorApplyGradient")
    .Input("handle: resource")
    .Input("local_step: int64")
    .Input("gradient: dtype")
    .Attr("dtype: numbertype")
    .SetShapeFn(ScalarSecondInputNoOutputs)
    .Doc("Adds a gradient, unless its local_step is below the global step (then it is dropped).");

REGISTER_OP("AccumulatorTakeGradient")
    .Input("handle: Ref(string)")
    .Input("num_required: int32")
    .Output("average: dtype")
    .Attr("dtype: numbertype")
    .SetShapeFn(TakeGradientShape)
    .Doc("Waits for num_required gradients, then returns their mean (or sum), empties the "
         "accumulator and increments its global step.");

REGISTER_OP("ResourceAccumulatorTakeGradient")
    .Input("handle: resource")
    .Input("num_required: int32")
    .Output("average: dtype")
    .Attr("dtype: numbertype")
    .SetShapeFn(TakeGradientShape)
    .Doc("Waits for num_required gradients, then returns their mean (or sum), empties the "
         "accumulator and increments its global step.");

REGISTER_OP("SparseAccumulatorApplyGradient")
    .Input("handle: Ref(string)")
    .Input("local_step: int64")
    .Input("gradient_indices: int64")
    .Input("gradient_values: dtype")
    .Input("gradient_shape: int64")
    .Attr("dtype: numbertype")
    .Attr("has_known_shape: bool")
    .SetShapeFn(ScalarSecondInputNoOutputs)
    .Doc("Adds a sparse gradient, unless its local_step is below the global step.");

REGISTER_OP("SparseAccumulatorTakeGradient")
    .Input("handle: Ref(string)")
    .Input("num_required: int32")
    .Output("indices: int64")
    .Output("values: dtype")
    .Output("shape: int64")
    .Attr("dtype: numbertype")
    .SetShapeFn(SparseTakeGradientShape)
    .Doc("Waits for num_required sparse gradients, then returns each row's mean (or sum) "
         "over the gradients that held it, indices ascending.");

}  // namespace af
