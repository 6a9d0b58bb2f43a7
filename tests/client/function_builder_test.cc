// Functions written with the C++ API: a body built in its own Scope becomes
// a FunctionDef, is called (nested too) from a graph, differentiates like
// its body (symbolic against numerical Jacobians), and keeps its side
// effects.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/function_builder.h"
#include "client/standard_ops.h"
#include "tests/client/grad_test_util.h"

namespace af {
namespace {

// f(x, w) = tanh(x * w) + x
tensorflow::FunctionDef TanhAffine() {
  Scope body = Scope::NewRootScope();
  auto x = ops::Placeholder(body.WithOpName("x"), DT_DOUBLE, PartialTensorShape({2, 3}));
  auto w = ops::Placeholder(body.WithOpName("w"), DT_DOUBLE, PartialTensorShape({2, 3}));
  auto y = ops::Add(body.WithOpName("y"), ops::Tanh(body, ops::Mul(body, x, w)), x);
  tensorflow::FunctionDef f;
  Status s = GraphToFunctionDef(*body.graph(), "tanh_affine", {x, w}, {y}, {"y"}, &f);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return f;
}

// g(x, w) = tanh_affine(x, w) * 2, a call inside a function.
tensorflow::FunctionDef DoubledCall(const tensorflow::FunctionDef& inner) {
  Scope body = Scope::NewRootScope();
  BOOST_TEST_REQUIRE(AddFunctionToLibrary(body, inner).ok());
  auto x = ops::Placeholder(body.WithOpName("x"), DT_DOUBLE, PartialTensorShape({2, 3}));
  auto w = ops::Placeholder(body.WithOpName("w"), DT_DOUBLE, PartialTensorShape({2, 3}));
  std::vector<Output> called = CallFunction(body, "tanh_affine", {x, w});
  BOOST_TEST_REQUIRE(body.ok(), body.status().ToString());
  auto y = ops::Mul(body.WithOpName("y"), called[0], ops::Const(body, 2.0));
  tensorflow::FunctionDef f;
  Status s = GraphToFunctionDef(*body.graph(), "doubled", {x, w}, {y}, {"y"}, &f);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return f;
}

double Reference(double x, double w) { return 2.0 * (std::tanh(x * w) + x); }

BOOST_AUTO_TEST_SUITE(function_builder)

BOOST_AUTO_TEST_CASE(a_function_built_with_the_ops_api_runs_nested) {
  Scope root = Scope::NewRootScope();
  const tensorflow::FunctionDef inner = TanhAffine();
  BOOST_TEST_REQUIRE(AddFunctionToLibrary(root, inner).ok());
  BOOST_TEST_REQUIRE(AddFunctionToLibrary(root, DoubledCall(inner)).ok());
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_DOUBLE);
  std::vector<Output> y = CallFunction(root, "doubled", {x, w});
  BOOST_TEST_REQUIRE(root.ok(), root.status().ToString());
  BOOST_TEST(y[0].shape().DebugString() == PartialTensorShape({2, 3}).DebugString());
  const Tensor xv = testing::RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 3);
  const Tensor wv = testing::RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 4);
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({{x, xv}, {w, wv}}, {y[0]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  for (int i = 0; i < 6; ++i) {
    BOOST_TEST(out[0].data<double>()[i] == Reference(xv.data<double>()[i], wv.data<double>()[i]),
               boost::test_tools::tolerance(1e-12));
  }
}

BOOST_AUTO_TEST_CASE(the_gradient_of_a_call_matches_the_numerical_gradient) {
  Scope root = Scope::NewRootScope();
  const tensorflow::FunctionDef inner = TanhAffine();
  BOOST_TEST_REQUIRE(AddFunctionToLibrary(root, inner).ok());
  BOOST_TEST_REQUIRE(AddFunctionToLibrary(root, DoubledCall(inner)).ok());
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE, PartialTensorShape({2, 3}));
  auto w = ops::Placeholder(root.WithOpName("w"), DT_DOUBLE, PartialTensorShape({2, 3}));
  std::vector<Output> y = CallFunction(root, "doubled", {x, w});
  BOOST_TEST_REQUIRE(root.ok(), root.status().ToString());
  const double error =
      testing::GradientError(root, {x, w},
                             {testing::RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 5),
                              testing::RandomTensor(DT_DOUBLE, TensorShape({2, 3}), -1, 1, 6)},
                             {y[0]});
  BOOST_TEST(error < 1e-8);
}

BOOST_AUTO_TEST_CASE(a_body_reading_a_foreign_placeholder_is_refused) {
  Scope body = Scope::NewRootScope();
  auto x = ops::Placeholder(body.WithOpName("x"), DT_FLOAT);
  auto stray = ops::Placeholder(body.WithOpName("stray"), DT_FLOAT);
  auto y = ops::Add(body, x, stray);
  tensorflow::FunctionDef f;
  Status s = GraphToFunctionDef(*body.graph(), "leaky", {x}, {y}, {}, &f);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("stray") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(a_stateful_body_runs_its_side_effects_when_called) {
  Scope root = Scope::NewRootScope();
  auto queue = ops::FIFOQueueV2(root.WithOpName("q"), {DT_FLOAT}, ops::FIFOQueueV2::Capacity(4));
  Scope body = Scope::NewRootScope();
  auto handle = ops::Placeholder(body.WithOpName("handle"), DT_RESOURCE);
  auto v = ops::Placeholder(body.WithOpName("v"), DT_FLOAT);
  ops::QueueEnqueueV2(body.WithOpName("enqueue"), handle, {v});
  auto twice = ops::Mul(body.WithOpName("twice"), v, ops::Const(body, 2.0f));
  tensorflow::FunctionDef f;
  BOOST_TEST_REQUIRE(
      GraphToFunctionDef(*body.graph(), "push", {handle, v}, {twice}, {"twice"}, &f).ok());
  // The enqueue is no result's input: its control output makes calls run it.
  BOOST_TEST(f.signature().is_stateful());
  BOOST_TEST(f.control_ret().count("enqueue") == 1u);
  BOOST_TEST_REQUIRE(AddFunctionToLibrary(root, f).ok());
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  std::vector<Output> doubled = CallFunction(root, "push", {queue, value});
  auto size = ops::QueueSizeV2(root.WithOpName("size"), queue);
  BOOST_TEST_REQUIRE(root.ok(), root.status().ToString());
  ClientSession session(root);
  std::vector<Tensor> out;
  for (float v : {1.0f, 2.0f}) {
    Status s = session.Run({{value, v}}, {doubled[0]}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 2 * v);
  }
  Status s = session.Run({size}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<int32_t>() == 2);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
