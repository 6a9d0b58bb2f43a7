// Fused optimizer updates: each reads the variable and its slots through
// reference edges and updates them in place (TensorFlow's names, inputs,
// attrs and formulas).
#include <initializer_list>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// Output = merge of the variable, its slots and the gradient; the
// hyperparameters must be scalars.
Status ApplyShape(InferenceContext* c, std::initializer_list<int> same_as_var,
                  std::initializer_list<int> scalars) {
  PartialTensorShape s = c->input(0);
  for (int i : same_as_var) AF_RETURN_IF_ERROR(c->Merge(s, c->input(i), &s));
  PartialTensorShape unused;
  for (int i : scalars) AF_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  c->set_output(0, std::move(s));
  return Status::OK();
}

}  // namespace

REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {2}, {1}); })
    .Doc("var -= alpha * delta.");

REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 3}, {2, 4}); })
    .Doc("accum = accum * momentum + grad; var -= lr * accum (Nesterov: "
         "var -= grad * lr + accum * momentum * lr).");

REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 2, 9}, {3, 4, 5, 6, 7, 8}); })
    .Doc("Adam: lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); "
         "m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2); "
         "var -= lr_t * m / (sqrt(v) + epsilon).");

REGISTER_OP("ApplyAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 3}, {2}); })
    .Doc("accum += grad^2; var -= lr * grad / sqrt(accum).");

REGISTER_OP("ApplyRMSProp")
    .Input("var: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 2, 7}, {3, 4, 5, 6}); })
    .Doc("ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / "
         "sqrt(ms + epsilon); var -= mom.");

}  // namespace af
