// Fused optimizer updates of resource variables: ApplyGradientDescent,
// ApplyMomentum and ApplyAdam taking the variable and its slots as
// DT_RESOURCE handles instead of reference edges (TensorFlow's names,
// inputs, attrs and formulas). They output nothing; like every op taking a
// variable's handle they are stateful, so that a function's inlining keeps
// them as effects and no pass merges or drops them.
#include <initializer_list>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// The handles and the hyperparameters are scalars. The variable's shape is
// not known from its handle here, so the gradient is checked when it runs.
Status ResourceApplyShape(InferenceContext* c, std::initializer_list<int> scalars) {
  PartialTensorShape unused;
  for (int i : scalars) AF_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  return Status::OK();
}

}  // namespace

REGISTER_OP("ResourceApplyGradientDescent")
    .Input("var: resource")
    .Input("alpha: T")
    .Input("delta: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      return ResourceApplyShape(c, {0, 1});
    })
    .Doc("var -= alpha * delta.");

REGISTER_OP("ResourceApplyMomentum")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ResourceApplyShape(c, {0, 1, 2, 4});
    })
    .Doc("accum = accum * momentum + grad; var -= lr * accum (Nesterov: "
         "var -= grad * lr + accum * momentum * lr).");

REGISTER_OP("ResourceApplyAdam")
    .Input("var: resource")
    .Input("m: resource")
    .Input("v: resource")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ResourceApplyShape(c, {0, 1, 2, 3, 4, 5, 6, 7, 8});
    })
    .Doc("Adam: lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); "
         "m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2); "
         "var -= lr_t * m / (sqrt(v) + epsilon).");

}  // namespace af
