// Gradients through Cond and WhileLoop, each checked against central
// differences (client/gradient_checker.h), and the graph they build.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/control_flow/cond.h"
#include "client/control_flow/while_loop.h"
#include "control_flow_test_util.h"
#include "grad_test_util.h"

namespace af {
namespace {

using testing::GradientError;
using testing::RandomTensor;

using testing::CountBelow;

BOOST_AUTO_TEST_SUITE(control_flow_gradients)

BOOST_AUTO_TEST_CASE(cond_gradient_flows_only_through_the_taken_branch) {
  for (bool taken : {true, false}) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
    auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
    Output out;
    BOOST_TEST_REQUIRE(Cond(root, ops::Const(root, taken),
                            [&](const Scope& b) { return Output(ops::Mul(b, ops::Mul(b, x, x), w)); },
                            [&](const Scope& b) { return Output(ops::Sin(b, ops::Add(b, x, w))); }, &out)
                           .ok());
    auto y = ops::Add(root, out, x);  // x also reaches y outside the cond
    double err = GradientError(root, {x, w},
                               {RandomTensor(DT_DOUBLE, TensorShape({3})),
                                RandomTensor(DT_DOUBLE, TensorShape({3}), -1, 1, 9)},
                               {y});
    BOOST_TEST(err < 1e-6, "taken=" << taken << " error " << err);
  }
}

BOOST_AUTO_TEST_CASE(cond_gradient_values_match_the_derivative_of_each_branch) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_BOOL);
  auto x = ops::Placeholder(root, DT_DOUBLE);
  std::vector<Output> out;
  BOOST_TEST_REQUIRE(Cond(root, p,
                          [&](const Scope& b, std::vector<Output>* r) {
                            *r = {ops::Mul(b, x, x)};
                            return b.status();
                          },
                          [&](const Scope& b, std::vector<Output>* r) {
                            *r = {ops::Mul(b, x, 3.0)};
                            return b.status();
                          },
                          &out)
                         .ok());
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {out[0]}, {x}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> r;
  BOOST_TEST_REQUIRE(session.Run({{p, true}, {x, 5.0}}, {grads[0]}, &r).ok());
  BOOST_TEST(r[0].scalar<double>() == 10.0);
  BOOST_TEST_REQUIRE(session.Run({{p, false}, {x, 5.0}}, {grads[0]}, &r).ok());
  BOOST_TEST(r[0].scalar<double>() == 3.0);
}

// v <- sin(v) * w + x for n iterations: the gradient reaches the initial
// value (a loop variable) and w, x (read from outside: loop invariants).
Output SinLoop(const Scope& root, const Output& v0, const Output& w, const Output& x, int n,
               const WhileLoopOptions& options = {}) {
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), v0}, CountBelow(n),
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Add(sc, v[0], 1), ops::Add(sc, ops::Mul(sc, ops::Sin(sc, v[1]), w), x)};
        return sc.status();
      },
      &out, options);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return out[1];
}

BOOST_AUTO_TEST_CASE(while_gradient_through_variables_and_invariants) {
  for (int n : {0, 1, 5}) {
    Scope root = Scope::NewRootScope();
    auto v0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
    auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
    auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
    auto y = SinLoop(root, v0, w, x, n);
    double err = GradientError(root, {v0, w, x},
                               {RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 1),
                                RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 2),
                                RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 3)},
                               {y});
    BOOST_TEST(err < 1e-6, "n=" << n << " error " << err);
  }
}

BOOST_AUTO_TEST_CASE(while_gradient_with_maximum_iterations) {
  Scope root = Scope::NewRootScope();
  auto v0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  WhileLoopOptions options;
  options.maximum_iterations = 3;  // the condition alone would allow 10
  auto y = SinLoop(root, v0, w, ops::Const(root, {0.5, -0.25}), 10, options);
  double err = GradientError(root, {v0, w},
                             {RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 4),
                              RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 5)},
                             {y});
  BOOST_TEST(err < 1e-6, err);
  // And the value: three iterations, not ten.
  ClientSession session(root);
  std::vector<Tensor> r;
  Tensor v = Tensor::FromVector<double>({0.3, 0.7}, TensorShape({2}));
  Tensor wv = Tensor::FromVector<double>({1.1, 0.9}, TensorShape({2}));
  BOOST_TEST_REQUIRE(session.Run({{v0, v}, {w, wv}}, {y}, &r).ok());
  double e = 0.3;
  for (int i = 0; i < 3; ++i) e = std::sin(e) * 1.1 + 0.5;
  BOOST_TEST(std::abs(r[0].data<double>()[0] - e) < 1e-12);
}

BOOST_AUTO_TEST_CASE(while_gradient_of_a_matmul_recurrence) {
  // h <- tanh(h W + b), 4 steps: what an RNN does, with matrices.
  Scope root = Scope::NewRootScope();
  auto h0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 3}));
  auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
  std::vector<Output> out;
  WhileLoopOptions options;
  options.parallel_iterations = 1;
  BOOST_TEST_REQUIRE(WhileLoop(root, {ops::Const(root, 0), h0}, CountBelow(4),
                               [&](const Scope& sc, const std::vector<Output>& v,
                                   std::vector<Output>* next) {
                                 *next = {ops::Add(sc, v[0], 1),
                                          ops::Tanh(sc, ops::Add(sc, ops::MatMul(sc, v[1], w), b))};
                                 return sc.status();
                               },
                               &out, options)
                         .ok());
  auto y = ops::Sum(root, ops::Square(root, out[1]), {0, 1});
  double err = GradientError(root, {h0, w, b},
                             {RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 6),
                              RandomTensor(DT_DOUBLE, TensorShape({3, 3}), -1, 1, 7),
                              RandomTensor(DT_DOUBLE, TensorShape({3}), -1, 1, 8)},
                             {y});
  BOOST_TEST(err < 1e-6, err);
}

BOOST_AUTO_TEST_CASE(nested_while_gradient) {
  // for i < 3: for j < 2: v <- sin(v * w) + u   (u read by the outer body)
  Scope root = Scope::NewRootScope();
  auto v0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto u = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), v0}, CountBelow(3),
      [&](const Scope& outer, const std::vector<Output>& ov, std::vector<Output>* onext) {
        auto shifted = ops::Mul(outer, u, ops::Cast(outer, ov[0], DT_DOUBLE));
        std::vector<Output> inner;
        AF_RETURN_IF_ERROR(WhileLoop(
            outer, {ops::Const(outer, 0), ov[1]}, CountBelow(2),
            [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
              *next = {ops::Add(sc, v[0], 1),
                       ops::Add(sc, ops::Sin(sc, ops::Mul(sc, v[1], w)), shifted)};
              return sc.status();
            },
            &inner));
        *onext = {ops::Add(outer, ov[0], 1), inner[1]};
        return outer.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  double err = GradientError(root, {v0, w, u},
                             {RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 11),
                              RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 12),
                              RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 13)},
                             {out[1]});
  BOOST_TEST(err < 1e-6, err);
}

BOOST_AUTO_TEST_CASE(a_cond_after_a_loop_and_a_loop_in_a_cond_branch) {
  Scope root = Scope::NewRootScope();
  auto v0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto looped = SinLoop(root, v0, w, ops::Const(root, {0.1, 0.2}), 3);
  Output out;
  BOOST_TEST_REQUIRE(Cond(root, ops::Const(root, true),
                          [&](const Scope& b) { return Output(SinLoop(b, looped, w, v0, 2)); },
                          [&](const Scope& b) { return Output(ops::Neg(b, looped)); }, &out)
                         .ok());
  double err = GradientError(root, {v0, w},
                             {RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 14),
                              RandomTensor(DT_DOUBLE, TensorShape({2}), -1, 1, 15)},
                             {out});
  BOOST_TEST(err < 1e-6, err);
}

BOOST_AUTO_TEST_CASE(the_same_loop_differentiated_many_steps_in_a_row) {
  // Stacks are per step: a second Run starts with empty ones.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  std::vector<Output> out;
  BOOST_TEST_REQUIRE(WhileLoop(root, {ops::Const(root, 0), ops::Const(root, 1.0)}, CountBelow(4),
                               [&](const Scope& sc, const std::vector<Output>& v,
                                   std::vector<Output>* next) {
                                 *next = {ops::Add(sc, v[0], 1), ops::Mul(sc, v[1], x)};
                                 return sc.status();
                               },
                               &out)
                         .ok());
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {out[1]}, {x}, &grads).ok());
  ClientSession session(root);
  for (double xv : {1.0, 2.0, 3.0}) {
    std::vector<Tensor> r;
    Status s = session.Run({{x, xv}}, {grads[0]}, &r);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(r[0].scalar<double>() == 4 * xv * xv * xv);  // d(x^4)/dx
  }
}

BOOST_AUTO_TEST_CASE(while_gradient_with_a_cond_in_the_body) {
  // v <- (sum(v) > 0) ? sin(v) * w : v * u - w, for 6 iterations: which
  // branch runs changes from iteration to iteration, and each branch reads
  // loop invariants; a nested cond in the true branch too.
  Scope root = Scope::NewRootScope();
  auto v0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto u = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  std::vector<Output> out;
  int true_branches = 0;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), v0}, CountBelow(6),
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        auto positive = ops::Greater(sc, ops::Sum(sc, v[1], {0}), 0.0);
        std::vector<Output> picked;
        AF_RETURN_IF_ERROR(Cond(
            sc, positive,
            [&](const Scope& b, std::vector<Output>* r) {
              ++true_branches;
              auto odd = ops::Equal(b, ops::FloorMod(b, v[0], 2), 1);
              return Cond(
                  b, odd,
                  [&](const Scope& bb, std::vector<Output>* rr) {
                    *rr = {ops::Mul(bb, ops::Sin(bb, v[1]), w)};
                    return bb.status();
                  },
                  [&](const Scope& bb, std::vector<Output>* rr) {
                    *rr = {ops::Mul(bb, ops::Cos(bb, v[1]), u)};
                    return bb.status();
                  },
                  r);
            },
            [&](const Scope& b, std::vector<Output>* r) {
              *r = {ops::Sub(b, ops::Mul(b, v[1], u), w)};
              return b.status();
            },
            &picked));
        *next = {ops::Add(sc, v[0], 1), picked[0]};
        return sc.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(true_branches == 1);  // built once, run per iteration
  // Values that send the loop through both branches (checked below).
  Tensor v0v = Tensor::FromVector<double>({0.4, -0.1}, TensorShape({2}));
  Tensor wv = Tensor::FromVector<double>({0.9, -1.3}, TensorShape({2}));
  Tensor uv = Tensor::FromVector<double>({-0.7, 0.5}, TensorShape({2}));
  int taken_true = 0;
  std::vector<double> x = {0.4, -0.1};
  for (int i = 0; i < 6; ++i) {
    std::vector<double> nx(2);
    if (x[0] + x[1] > 0) {
      ++taken_true;
      for (int k = 0; k < 2; ++k)
        nx[k] = i % 2 == 1 ? std::sin(x[k]) * wv.data<double>()[k]
                           : std::cos(x[k]) * uv.data<double>()[k];
    } else {
      for (int k = 0; k < 2; ++k) nx[k] = x[k] * uv.data<double>()[k] - wv.data<double>()[k];
    }
    x = nx;
  }
  BOOST_TEST_REQUIRE(taken_true > 0);
  BOOST_TEST_REQUIRE(taken_true < 6);
  ClientSession session(root);
  std::vector<Tensor> r;
  BOOST_TEST_REQUIRE(session.Run({{v0, v0v}, {w, wv}, {u, uv}}, {out[1]}, &r).ok());
  BOOST_TEST(std::abs(r[0].data<double>()[0] - x[0]) < 1e-12);
  BOOST_TEST(std::abs(r[0].data<double>()[1] - x[1]) < 1e-12);
  double err = GradientError(root, {v0, w, u}, {v0v, wv, uv}, {out[1]});
  BOOST_TEST(err < 1e-6, err);
}

BOOST_AUTO_TEST_CASE(tensor_array_rnn_in_a_loop) {
  // The RNN pattern: inputs unstacked into a TensorArray, read at step t,
  // h <- tanh(x_t W + h U), every h written to a second TensorArray and
  // gathered after the loop.
  const int steps = 3;
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({steps, 2, 2}));
  auto h0 = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto w = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto u = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3, 3}));
  auto inputs = ops::TensorArrayV3(root, steps, DT_DOUBLE);
  auto times = ops::Range(root, 0, steps, 1);
  auto scattered = ops::TensorArrayScatterV3(root, inputs.handle, times, x, inputs.flow);
  auto outputs = ops::TensorArrayV3(root, steps, DT_DOUBLE);
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), h0, outputs.flow}, CountBelow(steps),
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        auto xt = ops::TensorArrayReadV3(sc, inputs.handle, v[0], scattered.flow_out, DT_DOUBLE);
        auto h = ops::Tanh(sc, ops::Add(sc, ops::MatMul(sc, xt.value, w),
                                        ops::MatMul(sc, v[1], u)));
        auto written = ops::TensorArrayWriteV3(sc, outputs.handle, v[0], h, v[2]);
        *next = {ops::Add(sc, v[0], 1), h, written.flow_out};
        return sc.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  auto all = ops::TensorArrayGatherV3(root, outputs.handle, times, out[2], DT_DOUBLE,
                                      ops::TensorArrayGatherV3::ElementShape(
                                          PartialTensorShape({2, 3})));
  auto y = ops::Add(root, ops::Sum(root, ops::Square(root, all.value), {0, 1, 2}),
                    ops::Sum(root, out[1], {0, 1}));
  double err = GradientError(root, {x, h0, w, u},
                             {RandomTensor(DT_DOUBLE, TensorShape({steps, 2, 2}), -1, 1, 21),
                              RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 22),
                              RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 23),
                              RandomTensor(DT_DOUBLE, TensorShape({3, 3}), -1, 1, 24)},
                             {y});
  BOOST_TEST(err < 1e-6, err);
}

BOOST_AUTO_TEST_CASE(gradients_from_inside_a_loop_are_refused) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  Output inside;
  std::vector<Output> out;
  BOOST_TEST_REQUIRE(WhileLoop(root, {ops::Const(root, 0), x}, CountBelow(2),
                               [&](const Scope& sc, const std::vector<Output>& v,
                                   std::vector<Output>* next) {
                                 inside = ops::Mul(sc, v[1], 2.0);
                                 *next = {ops::Add(sc, v[0], 1), inside};
                                 return sc.status();
                               },
                               &out)
                         .ok());
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {out[1]}, {inside}, &grads);
  BOOST_TEST(s.code() == Code::UNIMPLEMENTED);
  BOOST_TEST(s.message().find("inside a while loop") != std::string::npos, s);
  // Differentiating a tensor of the loop from outside is refused as the
  // gradient's first op (its OnesLike) is built.
  s = AddSymbolicGradients(root, {inside}, {x}, &grads);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("'while/Mul:0'") != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
