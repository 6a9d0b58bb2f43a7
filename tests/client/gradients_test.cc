// AddSymbolicGradients: path finding, summing, stops and errors.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/op_builder.h"
#include "client/variables.h"
#include "core/shape_inference.h"
#include "grad_test_util.h"

namespace af {
namespace {

using testing::GradientError;

double Scalar(const Tensor& t) {
  return t.dtype() == DT_DOUBLE ? t.scalar<double>() : t.scalar<float>();
}

BOOST_AUTO_TEST_SUITE(gradients)

BOOST_AUTO_TEST_CASE(a_variable_read_directly_has_a_gradient) {
  // Square takes the variable's ref output; its gradient's constants are of
  // the value type (they used to be float_ref and failed to build).
  Scope root = Scope::NewRootScope();
  Variable w(root.WithOpName("w"), Input::Initializer({1.5, -2.0}));
  auto y = ops::Sum(root, ops::Square(root, w), 0);
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {y}, {w}, &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out).ok());
  BOOST_TEST_REQUIRE(session.Run({grads[0]}, &out).ok());
  BOOST_TEST(out[0].data<double>()[0] == 3.0);
  BOOST_TEST(out[0].data<double>()[1] == -4.0);
}

BOOST_AUTO_TEST_CASE(sums_gradients_over_every_path) {
  // y = x*x + 3x, dy/dx = 2x + 3.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto y = ops::Add(root, ops::Mul(root, x, x), ops::Mul(root, x, 3.0));
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  BOOST_TEST_REQUIRE(grads.size() == 1u);
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{x, 2.0}}, {grads[0]}, &out).ok());
  BOOST_TEST(Scalar(out[0]) == 7.0);
  // Gradient ops live under "gradients/".
  BOOST_TEST(grads[0].node()->name().rfind("gradients", 0) == 0u, grads[0].node()->name());
}

BOOST_AUTO_TEST_CASE(weights_by_grad_ys_and_handles_several_ys_and_xs) {
  // y1 = a*b, y2 = a + b; with dy1 = 2, dy2 = 10: da = 2b + 10, db = 2a + 10.
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto b = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto y1 = ops::Mul(root, a, b);
  auto y2 = ops::Add(root, a, b);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y1, y2}, {a, b},
                                          {ops::Const(root, 2.0), ops::Const(root, 10.0)},
                                          &grads)
                         .ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{a, 3.0}, {b, 5.0}}, grads, &out).ok());
  BOOST_TEST(Scalar(out[0]) == 20.0);
  BOOST_TEST(Scalar(out[1]) == 16.0);
}

BOOST_AUTO_TEST_CASE(intermediate_x_and_y_depending_on_another_y) {
  // h = 2x, y = h*h: dy/dh = 2h, dy/dx = 8x; also y depends on the y h.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto h = ops::Mul(root, x, 2.0);
  auto y = ops::Square(root, h);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y, h}, {x, h}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{x, 1.5}}, grads, &out).ok());
  // d(y + h)/dx = 8x + 2 = 14; d(y + h)/dh = 2h + 1 = 7.
  BOOST_TEST(Scalar(out[0]) == 14.0);
  BOOST_TEST(Scalar(out[1]) == 7.0);
}

BOOST_AUTO_TEST_CASE(unreachable_x_gets_zeros) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2}));
  auto unused = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
  auto y = ops::Neg(root, x);
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x, unused}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(
      session.Run({{x, {1.0, 2.0}}, {unused, {1.0, 2.0, 3.0}}}, grads, &out).ok());
  BOOST_TEST(out[0].data<double>()[1] == -1.0);
  BOOST_TEST(out[1].NumElements() == 3);
  for (int i = 0; i < 3; ++i) BOOST_TEST(out[1].data<double>()[i] == 0.0);
}

BOOST_AUTO_TEST_CASE(stop_gradient_blocks_a_path) {
  // y = x * stop(x): only the first factor is differentiated: dy/dx = x.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto y = ops::Mul(root, x, ops::StopGradient(root, x));
  std::vector<Output> grads;
  BOOST_TEST_REQUIRE(AddSymbolicGradients(root, {y}, {x}, &grads).ok());
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{x, 4.0}}, grads, &out).ok());
  BOOST_TEST(Scalar(out[0]) == 4.0);
}

BOOST_AUTO_TEST_CASE(prevent_gradient_is_an_error_naming_the_node) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto p = ops::PreventGradient(root.WithOpName("guard"), x,
                                ops::PreventGradient::Message("not differentiable here"));
  auto y = ops::Neg(root, p);
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {y}, {x}, &grads);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("guard") != std::string::npos, s);
  BOOST_TEST(s.message().find("not differentiable here") != std::string::npos, s);
}

// An op that exists only in this test, so no gradient is registered for it.
REGISTER_OP("AfTestOpWithoutGradient")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);

BOOST_AUTO_TEST_CASE(op_without_gradient_is_not_found_naming_the_op) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  OpBuilder b(root.WithOpName("nograd"), "AfTestOpWithoutGradient");
  b.AddInput(ops::Square(root, x));
  Output y(b.Finish(), 0);
  BOOST_TEST_REQUIRE(root.ok(), root.status());
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {y}, {x}, &grads);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(s.message().find("'AfTestOpWithoutGradient'") != std::string::npos, s);
  BOOST_TEST(s.message().find("'nograd'") != std::string::npos, s);
  BOOST_TEST(root.ok());  // the graph is still usable
  // Off the path, the op does not matter.
  BOOST_TEST(AddSymbolicGradients(root, {ops::Neg(root, x)}, {x}, &grads).ok());
}

BOOST_AUTO_TEST_CASE(a_loop_not_shaped_as_tensorflows_is_unimplemented) {
  // Enter straight into Exit: a frame with no Merge/Switch/LoopCond, which
  // the loop gradient cannot take apart (Cond and WhileLoop gradients are
  // in control_flow_grad_test.cc).
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto enter = ops::Enter(root.WithOpName("enter"), x, "odd_frame");
  auto y = ops::Neg(root, ops::Exit(root.WithOpName("exit"), enter));
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {y}, {x}, &grads);
  BOOST_TEST(s.code() == Code::UNIMPLEMENTED);
  BOOST_TEST(s.message().find("odd_frame") != std::string::npos, s);
  BOOST_TEST(s.message().find("'enter'") != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(no_gradient_through_integer_edges) {
  // Reshape's shape comes from Shape(x) (int32): no gradient flows there,
  // and Shape needs no gradient function.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto y = ops::Reshape(root, ops::Square(root, x), ops::Shape(root, x));
  BOOST_TEST(GradientError(root, {x}, {testing::RandomTensor(DT_DOUBLE, {2, 3})}, {y}) < 1e-6);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_reported) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({}));
  auto i = ops::Placeholder(root, DT_INT32, PartialTensorShape({}));
  auto y = ops::Neg(root, x);
  std::vector<Output> grads;
  BOOST_TEST(AddSymbolicGradients(root, {y}, {i}, &grads).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(AddSymbolicGradients(root, {y}, {x}, {}, &grads).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(AddSymbolicGradients(root, {y}, {x}, {ops::Const(root, 1.0f)}, &grads).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(AddSymbolicGradients(root, {Output()}, {x}, &grads).code() ==
             Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(multi_output_op_gets_zeros_for_unused_outputs) {
  // Only the first piece of a split is used; the other gets zeros.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({4, 2}));
  auto parts = ops::Split(root, 0, x, 2);
  auto y = ops::Square(root, parts.output[0]);
  BOOST_TEST(GradientError(root, {x}, {testing::RandomTensor(DT_DOUBLE, {4, 2})}, {y}) < 1e-6);
}

// The Sum gradient builds constants while the shape refiner still holds
// the constant inputs of the node it refines: they must stay where they
// are (a vector's resize once moved them under a OneHot shape function).
BOOST_AUTO_TEST_CASE(a_reduction_over_computed_axes_differentiates) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto y = ops::Square(root, x);
  auto sum = ops::Sum(root, y, ops::Range(root, 0, ops::Rank(root, y), 1));
  auto loss = ops::Reshape(root, sum, ops::Const(root, Input::Initializer(Tensor(DT_INT32, TensorShape({0})))));
  BOOST_TEST(GradientError(root, {x}, {testing::RandomTensor(DT_DOUBLE, {2, 3})}, {loss}) < 1e-6);
}

BOOST_AUTO_TEST_CASE(registry_lists_gradients) {
  const auto ops = GradOpRegistry::Global()->ListOps();
  for (const char* name : {"MatMul", "Add", "Relu", "Conv2D", "Sum", "StopGradient"})
    BOOST_TEST((std::find(ops.begin(), ops.end(), name) != ops.end()), name);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
