// Sparse optimizer updates (only the rows `indices` names move) and
// FTRL-Proximal, dense and sparse. Each reads the variable and its slots
// through reference edges and updates them in place; names, inputs, attrs
// and defaults are TensorFlow's, so its GraphDefs run here. SparseApplyAdam
// and SparseApplyAdamAllRows are ours: TensorFlow composes lazy Adam, and
// Adam with a sparse gradient, from gathers, scatters and assignments.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

constexpr int kDense = -1;

// Output = the variable's shape merged with its slots'. The listed
// hyper-parameters must be scalars. A dense gradient is shaped like the
// variable; a sparse one holds one row per index: indices a vector,
// grad.shape[0] == len(indices) and grad.shape[1:] == var.shape[1:] (so the
// variable is at least 1-D, as the kernels require).
Status ApplyShapeWithGrad(InferenceContext* c, std::initializer_list<int> slots,
                          std::initializer_list<int> scalars, int grad, int indices = kDense) {
  PartialTensorShape s = c->input(0);
  for (int i : slots) AF_RETURN_IF_ERROR(c->Merge(s, c->input(i), &s));
  PartialTensorShape unused;
  for (int i : scalars) AF_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  if (indices == kDense) {
    AF_RETURN_IF_ERROR(c->Merge(s, c->input(grad), &s));
    c->set_output(0, std::move(s));
    return Status::OK();
  }
  PartialTensorShape idx, g;
  AF_RETURN_IF_ERROR(c->WithRank(indices, 1, &idx));
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(grad, 1, &g));
  if (!g.unknown_rank()) {
    const int64_t rows = g.dim_size(0), n = idx.dim_size(0);
    if (rows >= 0 && n >= 0 && rows != n)
      return c->InvalidArgument("grad must have one row per index: grad.shape[0] = ", rows,
                                " but indices has ", n, " elements");
    // The rows the gradient touches are rows of the variable; how many
    // the variable has is not the gradient's business.
    std::vector<int64_t> row_shape = {-1};
    for (int d = 1; d < g.dims(); ++d) row_shape.push_back(g.dim_size(d));
    AF_RETURN_IF_ERROR(c->Merge(s, PartialTensorShape(row_shape), &s));
  }
  c->set_output(0, std::move(s));
  return Status::OK();
}

}  // namespace

REGISTER_OP("SparseApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1}, {2, 5}, 3, 4);
    })
    .Doc("For each row i named by indices, in order: accum[i] = accum[i] * momentum + grad; "
         "var[i] -= lr * accum[i] (Nesterov: var[i] -= grad * lr + accum[i] * momentum * lr).");

REGISTER_OP("SparseApplyAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn([](InferenceContext* c) { return ApplyShapeWithGrad(c, {1}, {2}, 3, 4); })
    .Doc("For each row i named by indices, in order: accum[i] += grad^2; "
         "var[i] -= lr * grad / sqrt(accum[i]).");

REGISTER_OP("SparseApplyAdamAllRows")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("lr_t: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("m_rows: T")
    .Input("v_rows: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float, double}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape rows;
      AF_RETURN_IF_ERROR(c->Merge(c->input(7), c->input(8), &rows));
      return ApplyShapeWithGrad(c, {1, 2}, {3, 4, 5, 6}, 7, 9);
    })
    .Doc("TensorFlow's Adam with a sparse gradient in one pass: m = m * beta1, then "
         "m[indices[j]] += m_rows[j] in order (m_rows = grad * (1 - beta1)); v likewise with "
         "beta2 and v_rows = grad^2 * (1 - beta2); every row: var -= lr_t * (m / (sqrt(v) + "
         "epsilon)). Ours: TensorFlow composes it from Assign, ScatterAdd and AssignSub.");

REGISTER_OP("SparseApplyAdam")
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
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1, 2}, {3, 4, 5, 6, 7, 8}, 9, 10);
    })
    .Doc("ApplyAdam's inputs plus indices; for each row i named by indices, in order: "
         "m[i] = beta1 * m[i] + (1 - beta1) * grad; v[i] = beta2 * v[i] + (1 - beta2) * grad^2; "
         "var[i] -= lr_t * m[i] / (sqrt(v[i]) + epsilon) with lr_t = lr * sqrt(1 - beta2_power) "
         "/ (1 - beta1_power) (Nesterov: the new m[i] in that step replaced by beta1 * m[i] + "
         "(1 - beta1) * grad, as in ApplyAdam). Rows not named keep var, m and v. Ours, not "
         "TensorFlow's (which has no sparse Adam op): the fused form of LazyAdam's row update.");

REGISTER_OP("SparseApplyRMSProp")
    .Input("var: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1, 2}, {3, 4, 5, 6}, 7, 8);
    })
    .Doc("For each row i named by indices, in order: ms[i] = rho * ms[i] + (1 - rho) * grad^2; "
         "mom[i] = momentum * mom[i] + lr * grad / sqrt(ms[i] + epsilon); var[i] -= mom[i].");

REGISTER_OP("ApplyFtrl")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1, 2}, {4, 5, 6, 7}, 3);
    })
    .Doc("FTRL-Proximal: accum_new = accum + grad^2; linear += grad - (accum_new^-lr_power - "
         "accum^-lr_power) / lr * var; var = |linear| > l1 ? (sign(linear) * l1 - linear) / "
         "(accum_new^-lr_power / lr + 2 * l2) : 0; accum = accum_new.");

REGISTER_OP("ApplyFtrlV2")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("l2_shrinkage: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1, 2}, {4, 5, 6, 7, 8}, 3);
    })
    .Doc("ApplyFtrl with linear moved by grad + 2 * l2_shrinkage * var instead of grad "
         "(accum still grows by grad^2).");

REGISTER_OP("SparseApplyFtrl")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1, 2}, {5, 6, 7, 8}, 3, 4);
    })
    .Doc("ApplyFtrl on the rows named by indices, in order.");

REGISTER_OP("SparseApplyFtrlV2")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("l2_shrinkage: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShapeWithGrad(c, {1, 2}, {5, 6, 7, 8, 9}, 3, 4);
    })
    .Doc("ApplyFtrlV2 on the rows named by indices, in order.");

}  // namespace af
