// Gradients of element-wise arithmetic, reductions, MatMul and friends.
// Binary ops broadcast, so each input's gradient is summed back to its shape.
#include "client/gradients/grad_helpers.h"
#include "client/gradients/grad_link.h"

namespace af {
namespace grad_link {
void MathGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

Status AddGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return BinaryGradCommon(s, op, g[0], g[0], out);
}
REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("AddV2", AddGrad);

Status SubGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return BinaryGradCommon(s, op, g[0], ops::Neg(s, g[0]), out);
}
REGISTER_GRADIENT_OP("Sub", SubGrad);

Status MulGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), y = op.input(1);
  return BinaryGradCommon(s, op, ops::Mul(s, g[0], y), ops::Mul(s, x, g[0]), out);
}
REGISTER_GRADIENT_OP("Mul", MulGrad);

// d(x/y)/dx = 1/y, d(x/y)/dy = -x/y^2.
Status DivGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), y = op.input(1);
  auto gx = ops::Div(s, g[0], y);
  auto gy = ops::Mul(s, g[0], ops::Div(s, ops::Div(s, ops::Neg(s, x), y), y));
  return BinaryGradCommon(s, op, gx, gy, out);
}
REGISTER_GRADIENT_OP("Div", DivGrad);

Status RealDivGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), y = op.input(1);
  auto gx = ops::RealDiv(s, g[0], y);
  auto gy = ops::Mul(s, g[0], ops::RealDiv(s, ops::RealDiv(s, ops::Neg(s, x), y), y));
  return BinaryGradCommon(s, op, gx, gy, out);
}
REGISTER_GRADIENT_OP("RealDiv", RealDivGrad);

// d(x^y)/dx = y x^(y-1); d(x^y)/dy = x^y log(x), taken as 0 where x <= 0
// (where the real power is only defined for integral y).
Status PowGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), y = op.input(1), z = op.output(0);
  const DataType t = x.type();
  auto y_minus_1 = ops::Sub(s, y, ScalarOfType(s, t, 1));
  auto gx = ops::Mul(s, g[0], ops::Mul(s, y, ops::Pow(s, x, y_minus_1)));
  auto zeros = ops::ZerosLike(s, x);
  auto positive = ops::Greater(s, x, zeros);
  auto safe_x = ops::SelectV2(s, positive, x, ops::OnesLike(s, x));
  auto log_x = ops::SelectV2(s, positive, ops::Log(s, safe_x), zeros);
  auto gy = ops::Mul(s, g[0], ops::Mul(s, z, log_x));
  return BinaryGradCommon(s, op, gx, gy, out);
}
REGISTER_GRADIENT_OP("Pow", PowGrad);

// The gradient goes to the input that was selected; ties go to x, as in
// TensorFlow.
template <bool kMax>
Status MaxMinGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), y = op.input(1);
  Output x_wins = kMax ? Output(ops::GreaterEqual(s, x, y)) : Output(ops::LessEqual(s, x, y));
  auto zeros = ops::ZerosLike(s, g[0]);
  auto gx = ops::SelectV2(s, x_wins, g[0], zeros);
  auto gy = ops::SelectV2(s, x_wins, zeros, g[0]);
  return BinaryGradCommon(s, op, gx, gy, out);
}
REGISTER_GRADIENT_OP("Maximum", MaxMinGrad<true>);
REGISTER_GRADIENT_OP("Minimum", MaxMinGrad<false>);

Status NegGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Neg(s, g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("Neg", NegGrad);

Status SquareGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0);
  out->push_back(ops::Mul(s, g[0], ops::Mul(s, x, ScalarOfType(s, x.type(), 2))));
  return s.status();
}
REGISTER_GRADIENT_OP("Square", SquareGrad);

Status AbsGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], ops::Sign(s, op.input(0))));
  return s.status();
}
REGISTER_GRADIENT_OP("Abs", AbsGrad);

// Piecewise-constant ops: zero almost everywhere.
Status ZeroGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::ZerosLike(s, op.input(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Sign", ZeroGrad);

// Ops whose gradient op takes the forward output y and the incoming dy.
template <typename GradOp>
Status OutputBasedGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(GradOp(s, op.output(0), g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("Sqrt", OutputBasedGrad<ops::SqrtGrad>);
REGISTER_GRADIENT_OP("Rsqrt", OutputBasedGrad<ops::RsqrtGrad>);
REGISTER_GRADIENT_OP("Tanh", OutputBasedGrad<ops::TanhGrad>);
REGISTER_GRADIENT_OP("Sigmoid", OutputBasedGrad<ops::SigmoidGrad>);
REGISTER_GRADIENT_OP("Reciprocal", OutputBasedGrad<ops::ReciprocalGrad>);
REGISTER_GRADIENT_OP("Inv", OutputBasedGrad<ops::InvGrad>);

Status ExpGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], op.output(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Exp", ExpGrad);

Status LogGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], ops::Reciprocal(s, op.input(0))));
  return s.status();
}
REGISTER_GRADIENT_OP("Log", LogGrad);

Status Log1pGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0);
  out->push_back(ops::Div(s, g[0], ops::Add(s, ScalarOfType(s, x.type(), 1), x)));
  return s.status();
}
REGISTER_GRADIENT_OP("Log1p", Log1pGrad);

// Casting between floating types passes the gradient back in the source
// type; integer sources get none.
Status CastGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  DataType src = DT_INVALID;
  AF_RETURN_IF_ERROR(GetAttr(op, "SrcT", &src));
  const bool differentiable = DataTypeIsFloating(src) || DataTypeIsComplex(src);
  out->push_back(differentiable ? Output(ops::Cast(s, g[0], src)) : NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Cast", CastGrad);

Status AddNGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->assign(op.num_inputs(), g[0]);
  return s.status();
}
REGISTER_GRADIENT_OP("AddN", AddNGrad);

// ---- MatMul ----

// The gradients of a = op(x), b = op(y) for product = a·b where op
// transposes (or adjoints) as the attrs say.
template <typename MatMulOp>
Status MatMulCommon(const Scope& s, const Output& x, const Output& y, bool tx, bool ty,
                    const Output& g, Output* gx, Output* gy) {
  using A = typename MatMulOp::Attrs;
  auto mm = [&](const Output& a, const Output& b, bool ta, bool tb) -> Output {
    return MatMulOp(s, a, b, A().TransposeA(ta).TransposeB(tb));
  };
  if (!tx && !ty) {
    *gx = mm(g, y, false, true);
    *gy = mm(x, g, true, false);
  } else if (!tx && ty) {
    *gx = mm(g, y, false, false);
    *gy = mm(g, x, true, false);
  } else if (tx && !ty) {
    *gx = mm(y, g, false, true);
    *gy = mm(x, g, false, false);
  } else {
    *gx = mm(y, g, true, true);
    *gy = mm(g, x, true, true);
  }
  return s.status();
}

Status MatMulGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  bool ta = false, tb = false;
  AF_RETURN_IF_ERROR(GetAttr(op, "transpose_a", &ta));
  AF_RETURN_IF_ERROR(GetAttr(op, "transpose_b", &tb));
  Output ga, gb;
  AF_RETURN_IF_ERROR(
      MatMulCommon<ops::MatMul>(s, op.input(0), op.input(1), ta, tb, g[0], &ga, &gb));
  out->push_back(ga);
  out->push_back(gb);
  return s.status();
}
REGISTER_GRADIENT_OP("MatMul", MatMulGrad);

// BatchMatMul's attrs are adj_x/adj_y; an adapter gives them MatMul's names.
template <typename BatchOp>
struct BatchMatMulAsMatMul {
  struct Attrs {
    Attrs TransposeA(bool v) const {
      Attrs r = *this;
      r.attrs = r.attrs.AdjX(v);
      return r;
    }
    Attrs TransposeB(bool v) const {
      Attrs r = *this;
      r.attrs = r.attrs.AdjY(v);
      return r;
    }
    typename BatchOp::Attrs attrs;
  };
  BatchMatMulAsMatMul(const Scope& s, const Output& a, const Output& b, const Attrs& attrs)
      : out(BatchOp(s, a, b, attrs.attrs)) {}
  operator Output() const { return out; }  // NOLINT
  Output out;
};

template <typename BatchOp, bool kBroadcasts>
Status BatchMatMulGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  bool adj_x = false, adj_y = false;
  AF_RETURN_IF_ERROR(GetAttr(op, "adj_x", &adj_x));
  AF_RETURN_IF_ERROR(GetAttr(op, "adj_y", &adj_y));
  Output gx, gy;
  AF_RETURN_IF_ERROR(MatMulCommon<BatchMatMulAsMatMul<BatchOp>>(s, op.input(0), op.input(1),
                                                                adj_x, adj_y, g[0], &gx, &gy));
  if (kBroadcasts) {
    // Batch dims broadcast in V2: sum each gradient back to its input.
    gx = SumToShapeOf(s, gx, op.input(0));
    gy = SumToShapeOf(s, gy, op.input(1));
  }
  out->push_back(gx);
  out->push_back(gy);
  return s.status();
}
REGISTER_GRADIENT_OP("BatchMatMul", (BatchMatMulGrad<ops::BatchMatMul, false>));
REGISTER_GRADIENT_OP("BatchMatMulV2", (BatchMatMulGrad<ops::BatchMatMulV2, true>));

// ---- Select ----

Status SelectGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output cond = op.input(0);
  auto zeros = ops::ZerosLike(s, g[0]);
  out->push_back(NoGradient());
  out->push_back(ops::Select(s, cond, g[0], zeros));
  out->push_back(ops::Select(s, cond, zeros, g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("Select", SelectGrad);

Status SelectV2Grad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output cond = op.input(0);
  auto zeros = ops::ZerosLike(s, g[0]);
  out->push_back(NoGradient());
  out->push_back(SumToShapeOf(s, ops::SelectV2(s, cond, g[0], zeros), op.input(1)));
  out->push_back(SumToShapeOf(s, ops::SelectV2(s, cond, zeros, g[0]), op.input(2)));
  return s.status();
}
REGISTER_GRADIENT_OP("SelectV2", SelectV2Grad);

// ---- Reductions ----

Status SumGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(BroadcastReductionGrad(s, g[0], op.input(0), op.input(1)));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Sum", SumGrad);

// Sum's gradient divided by how many inputs each output averaged.
Status MeanGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), y = op.output(0);
  auto sum_grad = BroadcastReductionGrad(s, g[0], x, op.input(1));
  Output count;
  const PartialTensorShape xs = x.shape(), ys = y.shape();
  if (xs.IsFullyDefined() && ys.IsFullyDefined()) {
    const int64_t n = ys.num_elements() == 0 ? 1 : xs.num_elements() / ys.num_elements();
    count = ScalarOfType(s, x.type(), static_cast<double>(n));
  } else {
    auto ratio = ops::FloorDiv(s, ops::Size(s, x), ops::Maximum(s, ops::Size(s, y), 1));
    count = ops::Cast(s, ratio, x.type());
  }
  out->push_back(ops::Div(s, sum_grad, count));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Mean", MeanGrad);

// The gradient is shared equally among the inputs that equal the extremum.
Status MaxMinReductionGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), axes = op.input(1), y = op.output(0);
  auto kept = ReducedShapeKeepDims(s, x, axes);
  auto y_kept = ops::Reshape(s, y, kept);
  auto g_kept = ops::Reshape(s, g[0], kept);
  auto indicators = ops::Cast(s, ops::Equal(s, x, y_kept), x.type());
  auto count = ops::Reshape(s, ops::Sum(s, indicators, axes), kept);
  out->push_back(ops::Mul(s, ops::Div(s, indicators, count), g_kept));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Max", MaxMinReductionGrad);
REGISTER_GRADIENT_OP("Min", MaxMinReductionGrad);

// d(prod)/dx_i is the product of the other elements of x_i's group. It is
// formed without dividing by zero: with no zero in the group it is
// prod / x_i, with one zero only that element gets the product of the
// rest, with two or more every element gets 0.
Status ProdGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), axes = op.input(1);
  const DataType t = x.type();
  auto kept = ReducedShapeKeepDims(s, x, axes);
  auto zero = ScalarOfType(s, t, 0);
  auto is_zero = ops::Equal(s, x, zero);
  auto zero_count = ops::Reshape(s, ops::Sum(s, ops::Cast(s, is_zero, t), axes), kept);
  auto safe_x = ops::SelectV2(s, is_zero, ops::OnesLike(s, x), x);
  auto prod_nonzero = ops::Reshape(s, ops::Prod(s, safe_x, axes), kept);
  auto if_nonzero = ops::SelectV2(s, ops::Equal(s, zero_count, zero),
                                  ops::Div(s, prod_nonzero, safe_x), zero);
  auto if_zero = ops::SelectV2(s, ops::Equal(s, zero_count, ScalarOfType(s, t, 1)),
                               prod_nonzero, zero);
  auto others = ops::SelectV2(s, is_zero, if_zero, if_nonzero);
  out->push_back(ops::Mul(s, others, ops::Reshape(s, g[0], kept)));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Prod", ProdGrad);

// ---- Matrix ops ----

// y = inv(A): dA = -inv(A)^T g inv(A)^T; with adjoint (y = inv(A)^T):
// dA = -y g^T y.
Status MatrixInverseGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  bool adjoint = false;
  AF_RETURN_IF_ERROR(GetAttr(op, "adjoint", &adjoint));
  const Output y = op.output(0);
  using A = ops::BatchMatMulV2::Attrs;
  auto inner = ops::BatchMatMulV2(s, g[0], y, A().AdjX(adjoint).AdjY(!adjoint));
  out->push_back(ops::Neg(s, ops::BatchMatMulV2(s, y, inner, A().AdjX(!adjoint))));
  return s.status();
}
REGISTER_GRADIENT_OP("MatrixInverse", MatrixInverseGrad);

// d det(A)/dA = det(A) inv(A)^T.
Status MatrixDeterminantGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto scale = ops::ExpandDims(s, ops::ExpandDims(s, ops::Mul(s, g[0], op.output(0)), -1), -1);
  auto inv_t = ops::MatrixInverse(s, op.input(0), ops::MatrixInverse::Adjoint(true));
  out->push_back(ops::Mul(s, scale, inv_t));
  return s.status();
}
REGISTER_GRADIENT_OP("MatrixDeterminant", MatrixDeterminantGrad);

// ---- Gradient ops (for second derivatives) ----

// ReluGrad(dy, x) = dy * (x > 0): linear in dy, piecewise constant in x.
Status ReluGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::ReluGrad(s, g[0], op.input(1)));
  out->push_back(ops::ZerosLike(s, op.input(1)));
  return s.status();
}
REGISTER_GRADIENT_OP("ReluGrad", ReluGradGrad);

// TanhGrad(y, dy) = dy (1 - y^2): d/dy = -2 y dy, d/d(dy) = 1 - y^2.
Status TanhGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output y = op.input(0), dy = op.input(1);
  auto two = ScalarOfType(s, y.type(), -2);
  out->push_back(ops::Mul(s, g[0], ops::Mul(s, ops::Mul(s, dy, y), two)));
  out->push_back(ops::TanhGrad(s, y, g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("TanhGrad", TanhGradGrad);

// SigmoidGrad(y, dy) = dy y (1 - y): d/dy = dy (1 - 2y), d/d(dy) = y (1 - y).
Status SigmoidGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output y = op.input(0), dy = op.input(1);
  const DataType t = y.type();
  auto one_minus_2y = ops::Sub(s, ScalarOfType(s, t, 1), ops::Mul(s, y, ScalarOfType(s, t, 2)));
  out->push_back(ops::Mul(s, g[0], ops::Mul(s, dy, one_minus_2y)));
  out->push_back(ops::SigmoidGrad(s, y, g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("SigmoidGrad", SigmoidGradGrad);

// Comparisons, logical ops and index-valued ops carry no gradient.
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");
REGISTER_NO_GRADIENT_OP("FloorDiv");

}  // namespace
}  // namespace grad
}  // namespace af
