// ClientSession: fetches, feeds, targets, and incremental graph extension.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/standard_ops.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(client_session)

BOOST_AUTO_TEST_CASE(fetches_a_constant_expression) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  auto b = ops::Const(root, {{1.f, 0.f}, {0.f, 2.f}});
  auto m = ops::MatMul(root, a, b, ops::MatMul::TransposeB(true));
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({m}, &out).ok());
  BOOST_TEST_REQUIRE(out.size() == 1u);
  const float* p = out[0].data<float>();
  BOOST_TEST(p[0] == 1.f);
  BOOST_TEST(p[1] == 4.f);
  BOOST_TEST(p[2] == 3.f);
  BOOST_TEST(p[3] == 8.f);
}

BOOST_AUTO_TEST_CASE(feeds_placeholders) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::Mul(root, x, 3.0f);
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({{x, {1.f, 2.f}}}, {y}, &out).ok());
  BOOST_TEST(out[0].data<float>()[1] == 6.f);
  BOOST_TEST_REQUIRE(session.Run({{x, Tensor::Scalar<float>(5.f)}}, {y}, &out).ok());
  BOOST_TEST(out[0].scalar<float>() == 15.f);
  // An unfed placeholder is an error, not a crash.
  BOOST_TEST(!session.Run({y}, &out).ok());
}

BOOST_AUTO_TEST_CASE(extends_with_nodes_added_after_a_run) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, 2.0f);
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({x}, &out).ok());
  auto y = ops::Square(root, x);
  BOOST_TEST_REQUIRE(session.Run({y}, &out).ok());
  BOOST_TEST(out[0].scalar<float>() == 4.f);
  auto z = ops::Neg(root, y);
  BOOST_TEST_REQUIRE(session.Run({z, y}, &out).ok());
  BOOST_TEST(out[0].scalar<float>() == -4.f);
  BOOST_TEST(out[1].scalar<float>() == 4.f);
}

BOOST_AUTO_TEST_CASE(runs_targets) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, 1.0f);
  auto noop = ops::NoOp(root.WithControlDependencies(x));
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST(session.Run({}, {}, {noop.operation}, &out).ok());
  BOOST_TEST(out.empty());
}

BOOST_AUTO_TEST_CASE(scope_errors_are_reported_by_run) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 1.0f);
  ops::Add(root, a, 1.0);  // float + double
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({a}, &out);
  BOOST_TEST(!s.ok());
  BOOST_TEST(s == root.status());
  BOOST_TEST(!session.Run({Output()}, &out).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
