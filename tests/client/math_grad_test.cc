// Numerical checks of the math gradients (double precision).
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "grad_test_util.h"

namespace af {
namespace {

using testing::GradientError;
using testing::RandomTensor;
using testing::UnaryGradientError;

constexpr double kTol = 1e-6;

BOOST_AUTO_TEST_SUITE(math_grad)

BOOST_AUTO_TEST_CASE(unary_ops) {
  const TensorShape shape{2, 3};
  struct Case {
    const char* name;
    Output (*build)(const Scope&, const Output&);
    double lo, hi;
  };
  const Case cases[] = {
      {"Neg", [](const Scope& s, const Output& x) -> Output { return ops::Neg(s, x); }, -1, 1},
      {"Square", [](const Scope& s, const Output& x) -> Output { return ops::Square(s, x); }, -1,
       1},
      {"Sqrt", [](const Scope& s, const Output& x) -> Output { return ops::Sqrt(s, x); }, 0.5, 2},
      {"Rsqrt", [](const Scope& s, const Output& x) -> Output { return ops::Rsqrt(s, x); }, 0.5,
       2},
      {"Exp", [](const Scope& s, const Output& x) -> Output { return ops::Exp(s, x); }, -1, 1},
      {"Log", [](const Scope& s, const Output& x) -> Output { return ops::Log(s, x); }, 0.5, 2},
      {"Log1p", [](const Scope& s, const Output& x) -> Output { return ops::Log1p(s, x); }, -0.5,
       1},
      {"Tanh", [](const Scope& s, const Output& x) -> Output { return ops::Tanh(s, x); }, -2, 2},
      {"Sigmoid", [](const Scope& s, const Output& x) -> Output { return ops::Sigmoid(s, x); },
       -2, 2},
      {"Abs", [](const Scope& s, const Output& x) -> Output { return ops::Abs(s, x); }, 0.2, 1},
      {"Reciprocal",
       [](const Scope& s, const Output& x) -> Output { return ops::Reciprocal(s, x); }, 0.5, 2},
      {"Inv", [](const Scope& s, const Output& x) -> Output { return ops::Inv(s, x); }, 0.5, 2},
      {"Sign", [](const Scope& s, const Output& x) -> Output { return ops::Sign(s, x); }, 0.2, 1},
      {"Identity", [](const Scope& s, const Output& x) -> Output { return ops::Identity(s, x); },
       -1, 1},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(UnaryGradientError(DT_DOUBLE, shape, c.build, c.lo, c.hi) < kTol);
    }
  }
  // Abs also for negative inputs.
  BOOST_TEST(UnaryGradientError(
                 DT_DOUBLE, shape,
                 [](const Scope& s, const Output& x) -> Output { return ops::Abs(s, x); }, -1,
                 -0.2) < kTol);
}

// y = op(x, z) for broadcasting shape pairs.
template <typename Op>
void CheckBinary(const char* name, double lo = -1, double hi = 1) {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1}, {1, 3}}, {{}, {2, 3}}, {{2, 3}, {}}};
  for (const auto& [xs, zs] : shapes) {
    BOOST_TEST_CONTEXT(name << " " << xs.DebugString() << " " << zs.DebugString()) {
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(xs));
      auto z = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(zs));
      Output y = Op(root, x, z);
      BOOST_TEST(GradientError(root, {x, z},
                               {RandomTensor(DT_DOUBLE, xs, lo, hi, 3),
                                RandomTensor(DT_DOUBLE, zs, lo, hi, 11)},
                               {y}) < kTol);
    }
  }
}

BOOST_AUTO_TEST_CASE(binary_ops_with_broadcasting) {
  CheckBinary<ops::Add>("Add");
  CheckBinary<ops::AddV2>("AddV2");
  CheckBinary<ops::Sub>("Sub");
  CheckBinary<ops::Mul>("Mul");
  CheckBinary<ops::Div>("Div", 0.5, 2);
  CheckBinary<ops::RealDiv>("RealDiv", 0.5, 2);
  CheckBinary<ops::Pow>("Pow", 0.5, 2);
  // Random values in different ranges never tie.
  CheckBinary<ops::Maximum>("Maximum");
  CheckBinary<ops::Minimum>("Minimum");
}

BOOST_AUTO_TEST_CASE(maximum_ties_go_to_x) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto z = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto y = ops::Maximum(root, x, z);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x, z}, &grads).ok());
  std::vector<std::vector<double>> theoretical, numerical;
  BOOST_TEST_REQUIRE(ComputeJacobians(root, {x, z},
                                      {Tensor::FromVector<double>({1.0, 2.0}),
                                       Tensor::FromVector<double>({1.0, 0.0})},
                                      {y}, {TensorShape{2}}, &theoretical, &numerical)
                         .ok());
  BOOST_TEST(theoretical[0][0] == 1.0);  // tie at index 0: x gets it
  BOOST_TEST(theoretical[2][0] == 0.0);
}

BOOST_AUTO_TEST_CASE(pow_with_nonpositive_base) {
  // d/dy of x^y is taken as 0 where x <= 0; d/dx stays exact for integral y.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
  auto y = ops::Pow(root, x, 3.0);
  BOOST_TEST(GradientError(root, {x}, {Tensor::FromVector<double>({-1.5, 0.5, 2.0})}, {y}) <
             1e-5);
}

BOOST_AUTO_TEST_CASE(matmul_all_transposes) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      BOOST_TEST_CONTEXT("transpose_a " << ta << " transpose_b " << tb) {
        Scope root = Scope::NewRootScope();
        const TensorShape as = ta ? TensorShape{3, 2} : TensorShape{2, 3};
        const TensorShape bs = tb ? TensorShape{4, 3} : TensorShape{3, 4};
        auto a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(as));
        auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(bs));
        auto y = ops::MatMul(root, a, b, ops::MatMul::TransposeA(ta).TransposeB(tb));
        BOOST_TEST(GradientError(root, {a, b},
                                 {RandomTensor(DT_DOUBLE, as, -1, 1, 1),
                                  RandomTensor(DT_DOUBLE, bs, -1, 1, 2)},
                                 {y}) < kTol);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(batch_matmul) {
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      BOOST_TEST_CONTEXT("adj_x " << adj_x << " adj_y " << adj_y) {
        Scope root = Scope::NewRootScope();
        const TensorShape xs = adj_x ? TensorShape{2, 3, 2} : TensorShape{2, 2, 3};
        const TensorShape ys = adj_y ? TensorShape{2, 2, 3} : TensorShape{2, 3, 2};
        auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(xs));
        auto y = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(ys));
        auto z = ops::BatchMatMul(root, x, y, ops::BatchMatMul::AdjX(adj_x).AdjY(adj_y));
        BOOST_TEST(GradientError(root, {x, y},
                                 {RandomTensor(DT_DOUBLE, xs, -1, 1, 1),
                                  RandomTensor(DT_DOUBLE, ys, -1, 1, 2)},
                                 {z}) < kTol);
      }
    }
  }
  // V2 broadcasts batch dims: [2,1,2,3] x [3,3,2] -> [2,3,2,2].
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 1, 2, 3}));
  auto y = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 3, 2}));
  auto z = ops::BatchMatMulV2(root, x, y);
  BOOST_TEST(GradientError(root, {x, y},
                           {RandomTensor(DT_DOUBLE, {2, 1, 2, 3}, -1, 1, 1),
                            RandomTensor(DT_DOUBLE, {3, 3, 2}, -1, 1, 2)},
                           {z}) < kTol);
}

BOOST_AUTO_TEST_CASE(add_n_cast_and_select) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 2}));
  auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 2}));
  auto sum = ops::AddN(root, {a, b, a});
  BOOST_TEST(GradientError(root, {a, b},
                           {RandomTensor(DT_DOUBLE, {2, 2}, -1, 1, 1),
                            RandomTensor(DT_DOUBLE, {2, 2}, -1, 1, 2)},
                           {sum}) < kTol);

  Scope r2 = Scope::NewRootScope();
  auto c = ops::Placeholder(r2, DT_DOUBLE, PartialTensorShape({3}));
  auto cast = ops::Cast(r2, ops::Cast(r2, c, DT_FLOAT), DT_DOUBLE);
  // Through float: about 1e-7 relative noise in the differences.
  BOOST_TEST(GradientError(r2, {c}, {RandomTensor(DT_DOUBLE, {3})}, {cast}, 1e-2) < 1e-4);

  Scope r3 = Scope::NewRootScope();
  auto cond = ops::Const(r3, {true, false, true});
  auto t = ops::Placeholder(r3, DT_DOUBLE, PartialTensorShape({3, 2}));
  auto e = ops::Placeholder(r3, DT_DOUBLE, PartialTensorShape({3, 2}));
  auto sel = ops::Select(r3, cond, t, e);
  BOOST_TEST(GradientError(r3, {t, e},
                           {RandomTensor(DT_DOUBLE, {3, 2}, -1, 1, 1),
                            RandomTensor(DT_DOUBLE, {3, 2}, -1, 1, 2)},
                           {sel}) < kTol);

  Scope r4 = Scope::NewRootScope();
  auto cond2 = ops::Const(r4, {{true}, {false}});
  auto t2 = ops::Placeholder(r4, DT_DOUBLE, PartialTensorShape({3}));
  auto e2 = ops::Placeholder(r4, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto sel2 = ops::SelectV2(r4, cond2, t2, e2);
  BOOST_TEST(GradientError(r4, {t2, e2},
                           {RandomTensor(DT_DOUBLE, {3}, -1, 1, 1),
                            RandomTensor(DT_DOUBLE, {2, 3}, -1, 1, 2)},
                           {sel2}) < kTol);
}

template <typename Op>
void CheckReduction(const char* name) {
  struct Case {
    std::vector<int> axes;
    bool keep_dims;
  };
  const Case cases[] = {{{1}, false}, {{0}, true}, {{-1}, false}, {{0, 2}, false},
                        {{0, 1, 2}, false}, {{1, 2}, true}};
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(name << " axes " << c.axes.size() << " keep_dims " << c.keep_dims) {
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3, 2}));
      std::vector<int32_t> axes(c.axes.begin(), c.axes.end());
      auto y = Op(root, x, ops::Const(root, Input::Initializer(Tensor::FromVector(axes))),
                  typename Op::Attrs().KeepDims(c.keep_dims));
      BOOST_TEST(GradientError(root, {x}, {RandomTensor(DT_DOUBLE, {2, 3, 2})}, {y}) < kTol);
    }
  }
}

BOOST_AUTO_TEST_CASE(reductions) {
  CheckReduction<ops::Sum>("Sum");
  CheckReduction<ops::Mean>("Mean");
  CheckReduction<ops::Max>("Max");
  CheckReduction<ops::Min>("Min");
  CheckReduction<ops::Prod>("Prod");
}

BOOST_AUTO_TEST_CASE(prod_with_zeros) {
  // Rows with no, one and two zeros; the product is linear in each
  // element, so central differences are exact even at zero.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 3}));
  auto y = ops::Prod(root, x, 1);
  Tensor values =
      Tensor::FromVector<double>({0.5, 2.0, -3.0, 0.0, 2.0, 3.0, 0.0, 0.0, 4.0}, {3, 3});
  BOOST_TEST(GradientError(root, {x}, {values}, {y}) < kTol);
}

BOOST_AUTO_TEST_CASE(matrix_inverse_and_determinant) {
  // Diagonally dominant, so well conditioned.
  Tensor a = RandomTensor(DT_DOUBLE, {2, 3, 3}, -0.3, 0.3);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i) a.data<double>()[b * 9 + i * 4] += 2.0;
  for (bool adjoint : {false, true}) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3, 3}));
    auto inv = ops::MatrixInverse(root, x, ops::MatrixInverse::Adjoint(adjoint));
    BOOST_TEST(GradientError(root, {x}, {a}, {inv}) < 1e-5, "adjoint " << adjoint);
  }
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3, 3}));
  auto det = ops::MatrixDeterminant(root, x);
  BOOST_TEST(GradientError(root, {x}, {a}, {det}) < 1e-5);
}

BOOST_AUTO_TEST_CASE(second_derivatives_through_gradient_ops) {
  // The gradient of a gradient: d/dx of d(sum f(x))/dx.
  using Build = Output (*)(const Scope&, const Output&);
  const std::pair<const char*, Build> cases[] = {
      {"Tanh", [](const Scope& s, const Output& x) -> Output { return ops::Tanh(s, x); }},
      {"Sigmoid", [](const Scope& s, const Output& x) -> Output { return ops::Sigmoid(s, x); }},
  };
  for (const auto& [name, build] : cases) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
    std::vector<Output> first;
    BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {build(root, x)}, {x}, &first).ok());
    BOOST_TEST(GradientError(root, {x}, {RandomTensor(DT_DOUBLE, {2, 3}, -2, 2)}, {first[0]}) <
                   kTol,
               name);
  }
  // ReluGrad in both of its inputs.
  Scope root = Scope::NewRootScope();
  auto dy = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto r = ops::ReluGrad(root, dy, x);
  BOOST_TEST(GradientError(root, {dy, x},
                           {RandomTensor(DT_DOUBLE, {2, 3}, -1, 1, 1),
                            RandomTensor(DT_DOUBLE, {2, 3}, -1, 1, 2)},
                           {r}) < kTol);
}

BOOST_AUTO_TEST_CASE(reductions_with_shapes_known_only_at_run_time) {
  // Unknown rank and fed axes: the kept-dims shape is computed in the graph.
  for (bool mean : {false, true}) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_DOUBLE);
    auto axes = ops::Placeholder(root, DT_INT32);
    Output y = mean ? Output(ops::Mean(root, x, axes)) : Output(ops::Sum(root, x, axes));
    std::vector<Output> grads;
    BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
    ClientSession session(root);
    std::vector<Tensor> out;
    BOOST_TEST_REQUIRE(session
                           .Run({{x, RandomTensor(DT_DOUBLE, {2, 3, 2})},
                                 {axes, Tensor::FromVector<int32_t>({-1, 0})}},
                                {grads[0]}, &out)
                           .ok());
    BOOST_TEST_REQUIRE(out[0].shape() == TensorShape({2, 3, 2}));
    for (int i = 0; i < 12; ++i) BOOST_TEST(out[0].data<double>()[i] == (mean ? 0.25 : 1.0));
  }
}

BOOST_AUTO_TEST_CASE(max_reduction_shares_ties) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({4}));
  auto y = ops::Max(root, x, 0);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{x, {1.0, 3.0, 3.0, 2.0}}}, {grads[0]}, &out).ok());
  const double* g = out[0].data<double>();
  BOOST_TEST(g[0] == 0.0);
  BOOST_TEST(g[1] == 0.5);
  BOOST_TEST(g[2] == 0.5);
  BOOST_TEST(g[3] == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
