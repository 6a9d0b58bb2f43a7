// Neural-network ops: activations and their gradients, bias, softmax and
// L2Loss. Convolution, pooling, losses and batch normalization live in
// nn_conv_ops.cc, nn_pool_ops.cc, nn_loss_ops.cc and nn_norm_ops.cc.
#include <string>

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

// The channel count of a BiasAdd gradient: the last dim (NHWC) or dim 1
// (NCHW), as the kernel reads it.
Status BiasAddGradShape(InferenceContext* c) {
  std::string format = "NHWC";
  if (HasNodeAttr(c->node_def(), "data_format"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("data_format", &format)));
  PartialTensorShape grad;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2, &grad));
  if (grad.unknown_rank()) {
    c->set_output(0, PartialTensorShape({-1}));
    return Status::OK();
  }
  const int channel = format == "NCHW" ? 1 : grad.dims() - 1;
  c->set_output(0, PartialTensorShape({grad.dim_size(channel)}));
  return Status::OK();
}

constexpr const char* kFloatingTypes = "T: {half, bfloat16, float, double}";

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

REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddGradShape)
    .Doc("Sums out_backprop over every dim but the channel dim.");

REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::MergeAllInputs)
    .Doc("gradients * (features > 0).");

REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("min(max(features, 0), 6).");

REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fn::MergeAllInputs)
    .Doc("gradients * (0 < features < 6).");

REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("features if > 0, else exp(features) - 1.");

REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::MergeAllInputs)
    .Doc("gradients if outputs > 0, else gradients * (outputs + 1).");

REGISTER_OP("Selu")
    .Input("features: T")
    .Output("activations: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("scale * features if > 0, else scale * alpha * (exp(features) - 1).");

REGISTER_OP("SeluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::MergeAllInputs)
    .Doc("Selu's gradient from its outputs.");

REGISTER_OP("Softplus")
    .Input("features: T")
    .Output("activations: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::UnchangedShape)
    .Doc("log(exp(features) + 1).");

REGISTER_OP("SoftplusGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::MergeAllInputs)
    .Doc("gradients * sigmoid(features).");

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(SoftmaxShape)
    .Doc("logits - log(sum(exp(logits))) along the last dimension.");

REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr(kFloatingTypes)
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("sum(t ** 2) / 2.");

}  // namespace af
