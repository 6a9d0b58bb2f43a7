// Neural-network ops.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

Status SoftmaxShape(InferenceContext* c) {
  PartialTensorShape logits;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1, &logits));
  c->set_output(0, std::move(logits));
  return Status::OK();
}

}  // namespace

REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(shape_fn::BiasAddShape)
    .Doc("Adds a 1-D bias along the channel dimension of value.");

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {realnumbertype, qint8}")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("max(features, 0).");

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape)
    .Doc("exp(logits) / sum(exp(logits)) along the last dimension.");

}  // namespace af
