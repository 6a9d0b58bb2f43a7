// Gradients of neural-network ops: activations, softmax and losses, bias,
// convolution, pooling and batch normalization. Most map onto the
// dedicated *Grad ops the kernels provide.
#include "client/gradients/grad_helpers.h"
#include "client/gradients/grad_link.h"

namespace af {
namespace grad_link {
void NnGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

// Builds a gradient op that takes the forward op's attrs of the same names.
Operation BuildLike(const Scope& s, const char* type, const std::vector<Input>& inputs,
                    const Operation& forward, std::initializer_list<const char*> attrs) {
  OpBuilder b(s, type);
  for (const Input& in : inputs) b.AddInput(in);
  CopyAttrs(forward, attrs, &b.attrs());
  return b.Finish();
}

// ---- Activations ----

// gradient op(dy, forward input)
template <typename GradOp>
Status InputBasedGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(GradOp(s, g[0], op.input(0)));
  return s.status();
}
// gradient op(dy, forward output)
template <typename GradOp>
Status OutputBasedGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(GradOp(s, g[0], op.output(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Relu", InputBasedGrad<ops::ReluGrad>);
REGISTER_GRADIENT_OP("Relu6", InputBasedGrad<ops::Relu6Grad>);
REGISTER_GRADIENT_OP("Softplus", InputBasedGrad<ops::SoftplusGrad>);
REGISTER_GRADIENT_OP("Elu", OutputBasedGrad<ops::EluGrad>);
REGISTER_GRADIENT_OP("Selu", OutputBasedGrad<ops::SeluGrad>);

// dx = (dy - sum(dy * y, last axis)) * y
Status SoftmaxGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output y = op.output(0);
  auto dot = ops::Sum(s, ops::Mul(s, g[0], y), -1, ops::Sum::KeepDims(true));
  out->push_back(ops::Mul(s, ops::Sub(s, g[0], dot), y));
  return s.status();
}
REGISTER_GRADIENT_OP("Softmax", SoftmaxGrad);

// dx = dy - sum(dy, last axis) * softmax, with softmax = exp(y)
Status LogSoftmaxGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto softmax = ops::Exp(s, op.output(0));
  auto total = ops::Sum(s, g[0], -1, ops::Sum::KeepDims(true));
  out->push_back(ops::Sub(s, g[0], ops::Mul(s, total, softmax)));
  return s.status();
}
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGrad);

Status L2LossGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, op.input(0), g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("L2Loss", L2LossGrad);

Status BiasAddGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(g[0]);
  out->push_back(Output(BuildLike(s, "BiasAddGrad", {g[0]}, op, {"data_format"}), 0));
  return s.status();
}
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGradFn);

// ---- Losses ----

// The gradient reaching the second output (backprop = softmax - labels)
// goes through the softmax Jacobian: (gb - sum(gb * p)) * p.
Output SoftmaxJacobianTerm(const Scope& s, const Output& gb, const Output& logits) {
  auto p = ops::Softmax(s, logits);
  auto dot = ops::Sum(s, ops::Mul(s, gb, p), -1, ops::Sum::KeepDims(true));
  return ops::Mul(s, ops::Sub(s, gb, dot), p);
}

Status SoftmaxXentGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output logits = op.input(0), backprop = op.output(1);
  auto g_loss = ops::ExpandDims(s, g[0], -1);
  Output d_logits = ops::Mul(s, g_loss, backprop);
  Output d_labels = ops::Mul(s, g_loss, ops::Neg(s, ops::LogSoftmax(s, logits)));
  if (!IsZerosLike(g[1])) {
    d_logits = ops::Add(s, d_logits, SoftmaxJacobianTerm(s, g[1], logits));
    d_labels = ops::Sub(s, d_labels, g[1]);
  }
  out->push_back(d_logits);
  out->push_back(d_labels);
  return s.status();
}
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits", SoftmaxXentGrad);

Status SparseSoftmaxXentGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output logits = op.input(0), backprop = op.output(1);
  Output d_logits = ops::Mul(s, ops::ExpandDims(s, g[0], -1), backprop);
  if (!IsZerosLike(g[1])) d_logits = ops::Add(s, d_logits, SoftmaxJacobianTerm(s, g[1], logits));
  out->push_back(d_logits);
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxXentGrad);

// ---- Convolution and pooling ----

Status Conv2DGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output input = op.input(0), filter = op.input(1);
  const auto attrs = {"strides", "padding", "explicit_paddings", "data_format", "dilations",
                      "use_cudnn_on_gpu"};
  out->push_back(Output(
      BuildLike(s, "Conv2DBackpropInput", {ops::Shape(s, input), filter, g[0]}, op, attrs), 0));
  out->push_back(Output(
      BuildLike(s, "Conv2DBackpropFilter", {input, ops::Shape(s, filter), g[0]}, op, attrs), 0));
  return s.status();
}
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);

Status MaxPoolGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(Output(BuildLike(s, "MaxPoolGrad", {op.input(0), op.output(0), g[0]}, op,
                                  {"ksize", "strides", "padding", "explicit_paddings",
                                   "data_format"}),
                        0));
  return s.status();
}
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGradFn);

Status AvgPoolGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(Output(BuildLike(s, "AvgPoolGrad", {ops::Shape(s, op.input(0)), g[0]}, op,
                                  {"ksize", "strides", "padding", "data_format"}),
                        0));
  return s.status();
}
REGISTER_GRADIENT_OP("AvgPool", AvgPoolGradFn);

// ---- Batch normalization ----

// In training the grad op recomputes with the batch statistics the forward
// op saved (reserve spaces); in inference it takes the population mean and
// variance the forward op was given. Gradients reaching batch_mean and
// batch_variance are not propagated, as in TensorFlow.
template <int kVersion>
Status FusedBatchNormGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  bool is_training = true;
  GetAttr(op, "is_training", &is_training).ok();
  const char* type = kVersion == 1   ? "FusedBatchNormGrad"
                     : kVersion == 2 ? "FusedBatchNormGradV2"
                                     : "FusedBatchNormGradV3";
  std::vector<Input> inputs = {g[0], op.input(0), op.input(1)};
  if (is_training) {
    inputs.push_back(op.output(3));
    inputs.push_back(op.output(4));
  } else {
    inputs.push_back(op.input(3));
    inputs.push_back(op.input(4));
  }
  if (kVersion == 3) inputs.push_back(op.output(5));
  Operation grad = BuildLike(s, type, inputs, op, {"epsilon", "data_format", "is_training"});
  AF_RETURN_IF_ERROR(s.status());
  out->push_back(grad.output(0));  // x
  out->push_back(grad.output(1));  // scale
  out->push_back(grad.output(2));  // offset
  out->push_back(NoGradient());    // mean
  out->push_back(NoGradient());    // variance
  return s.status();
}
REGISTER_GRADIENT_OP("FusedBatchNorm", FusedBatchNormGradFn<1>);
REGISTER_GRADIENT_OP("FusedBatchNormV2", FusedBatchNormGradFn<2>);
REGISTER_GRADIENT_OP("FusedBatchNormV3", FusedBatchNormGradFn<3>);

}  // namespace
}  // namespace grad
}  // namespace af
