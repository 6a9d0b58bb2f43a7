// Softmax cross-entropy losses, returning the per-example loss and its
// gradient with respect to the logits in one pass.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// features and labels broadcast to a [batch, classes] matrix.
Status SoftmaxCrossEntropyShape(InferenceContext* c) {
  PartialTensorShape both;
  AF_RETURN_IF_ERROR(c->BroadcastBinary(c->input(0), c->input(1), &both));
  if (both.unknown_rank()) both = PartialTensorShape::UnknownOfRank(2);
  if (both.dims() != 2)
    return c->InvalidArgument("Shape must be broadcasted with rank 2, but is rank ", both.dims());
  c->set_output(0, PartialTensorShape({both.dim_size(0)}));
  c->set_output(1, std::move(both));
  return Status::OK();
}

// features [batch, classes] with labels [batch].
Status SparseSoftmaxCrossEntropyShape(InferenceContext* c) {
  PartialTensorShape features, labels;
  AF_RETURN_IF_ERROR(c->WithRank(0, 2, &features));
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &labels));
  const int64_t fb = features.dim_size(0), lb = labels.dim_size(0);
  if (fb >= 0 && lb >= 0 && fb != lb)
    return c->InvalidArgument(
        "logits and labels must have the same first dimension, got "
        "logits shape ",
        features.DebugString(), " and labels shape ", labels.DebugString());
  const int64_t batch = fb >= 0 ? fb : lb;
  c->set_output(0, PartialTensorShape({batch}));
  c->set_output(1, PartialTensorShape({batch, features.dim_size(1)}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxCrossEntropyShape)
    .Doc("-sum(labels * log_softmax(features)) per row, and softmax(features) - labels.");

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("Tlabels: {int32, int64} = DT_INT64")
    .SetShapeFn(SparseSoftmaxCrossEntropyShape)
    .Doc("Softmax cross-entropy against one class index per row.");

}  // namespace af
