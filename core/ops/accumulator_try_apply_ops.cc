// AccumulatorTryApplyGradient: an Actorflow op, not TensorFlow's (TensorFlow
// has no way to learn whether an apply was kept). AccumulatorApplyGradient
// has no output, so a worker of a synchronous step cannot tell that its
// gradient was dropped as stale, and TensorFlow's users asked to know. This
// op applies like AccumulatorApplyGradient to the same (TF1, Ref(string))
// accumulators and outputs whether the gradient was kept.
//
// max_accumulated > 0 also drops a gradient that finds the accumulator
// already holding that many (a surplus, counted with the stale ones): with
// backup workers (replicas_to_aggregate m < n) exactly m gradients are then
// averaged per step even when the chief's take arrives after more than m
// did, which TensorFlow would all average. max_accumulated <= 0 applies
// exactly as AccumulatorApplyGradient does. `replica` names the sender
// (a worker's task), so that a take left waiting can say whom it waits for.
//
// SparseAccumulatorTryApplyGradient is the same for a
// SparseConditionalAccumulator and IndexedSlices (a gather's gradient): the
// rows cross to the accumulator's task, not the table.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status TryApplyShape(InferenceContext* c) {
  PartialTensorShape unused;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));  // local_step
  AF_RETURN_IF_ERROR(c->WithRank(3, 0, &unused));  // max_accumulated
  return shape_fn::ScalarShape(c);
}

Status SparseTryApplyShape(InferenceContext* c) {
  PartialTensorShape unused;
  AF_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));  // local_step
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &unused));  // gradient_indices
  AF_RETURN_IF_ERROR(c->WithRank(4, 1, &unused));  // gradient_shape
  AF_RETURN_IF_ERROR(c->WithRank(5, 0, &unused));  // max_accumulated
  return shape_fn::ScalarShape(c);
}

}  // namespace

REGISTER_OP("AccumulatorTryApplyGradient")
    .Input("handle: Ref(string)")
    .Input("local_step: int64")
    .Input("gradient: dtype")
    .Input("max_accumulated: int32")
    .Output("applied: bool")
    .Attr("dtype: numbertype")
    .Attr("replica: string = ''")
    .SetShapeFn(TryApplyShape)
    .Doc("Actorflow's own op: AccumulatorApplyGradient that says whether the gradient was "
         "kept; dropped when stale, or (max_accumulated > 0) when the accumulator already "
         "holds max_accumulated gradients.");

REGISTER_OP("SparseAccumulatorTryApplyGradient")
    .Input("handle: Ref(string)")
    .Input("local_step: int64")
    .Input("gradient_indices: int64")
    .Input("gradient_values: dtype")
    .Input("gradient_shape: int64")
    .Input("max_accumulated: int32")
    .Output("applied: bool")
    .Attr("dtype: numbertype")
    .Attr("has_known_shape: bool")
    .Attr("replica: string = ''")
    .SetShapeFn(SparseTryApplyShape)
    .Doc("Actorflow's own op: SparseAccumulatorApplyGradient that says whether the gradient "
         "was kept, with AccumulatorTryApplyGradient's max_accumulated.");

}  // namespace af
