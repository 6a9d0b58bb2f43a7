// Resource variables through a session: create, assign, read, update; a
// value read (and fetched) earlier never changes; TensorFlow's errors for
// uninitialized and destroyed variables; gathers and scatters; a tiny
// linear regression trained with ResourceApplyGradientDescent on gradients
// taken with respect to the handles; sharing by shared_name; and every op
// taking a handle placed with the VarHandleOp that made it.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/gradients.h"
#include "client/standard_ops.h"
#include "core/resource_mgr.h"
#include "tests/test_util.h"

namespace af {
namespace {

using testing::Contains;

// Variables live in the process's device managers, shared by sessions:
// each case uses a container of its own and empties it when done.
struct Container {
  explicit Container(std::string n) : name(std::move(n)) { CleanupContainerOnAllDevices(name); }
  ~Container() { CleanupContainerOnAllDevices(name); }
  ops::VarHandleOp::Attrs Attrs(const std::string& shared_name) const {
    return ops::VarHandleOp::Container(name).SharedName(shared_name);
  }
  std::string name;
};

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

BOOST_AUTO_TEST_SUITE(resource_variable_session)

BOOST_AUTO_TEST_CASE(assign_read_and_assign_add) {
  Container c("rv_session_basic");
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, PartialTensorShape({2}), c.Attrs("v"));
  auto init = ops::AssignVariableOp(root, v, ops::Const(root, {1.f, 2.f}));
  auto add = ops::AssignAddVariableOp(root, v, ops::Const(root, {10.f, 20.f}));
  auto read = ops::ReadVariableOp(root.WithOpName("read"), v, DT_FLOAT);
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {init.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({read.value}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(out[0]) == std::vector<float>({1, 2}), boost::test_tools::per_element());
  s = session.Run({}, {}, {add.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({read.value}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(out[0]) == std::vector<float>({11, 22}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_value_read_earlier_never_changes) {
  Container c("rv_session_isolation");
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root, DT_FLOAT, PartialTensorShape({2}), c.Attrs("v"));
  auto init = ops::AssignVariableOp(root, v, ops::Const(root, {1.f, 2.f}));
  auto read = ops::ReadVariableOp(root.WithOpName("read"), v, DT_FLOAT);
  // In one step: the read runs first, the update after it, and the read's
  // value is still the old one when it is fetched.
  auto add = ops::AssignAddVariableOp(root.WithControlDependencies({read.value.op()}), v,
                                      ops::Const(root, {10.f, 10.f}));
  ClientSession session(root);
  Status s = session.Run({}, {}, {init.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> first;
  s = session.Run({}, {read.value}, {add.operation}, &first);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(first[0]) == std::vector<float>({1, 2}), boost::test_tools::per_element());
  // Across steps: what the client holds stays as fetched.
  std::vector<Tensor> second;
  s = session.Run({}, {read.value}, {add.operation}, &second);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(first[0]) == std::vector<float>({1, 2}), boost::test_tools::per_element());
  BOOST_TEST(Values(second[0]) == std::vector<float>({11, 12}), boost::test_tools::per_element());
  auto assign = ops::AssignVariableOp(root, v, ops::Const(root, {0.f, 0.f}));
  s = session.Run({}, {}, {assign.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(second[0]) == std::vector<float>({11, 12}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(uninitialized_and_destroyed_variables) {
  Container c("rv_session_lifecycle");
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, PartialTensorShape({}), c.Attrs("v"));
  auto is_init = ops::VarIsInitializedOp(root, v);
  auto read = ops::ReadVariableOp(root.WithOpName("read_v"), v, DT_FLOAT);
  auto init = ops::AssignVariableOp(root, v, ops::Const(root, 3.f));
  auto destroy = ops::DestroyResourceOp(root, v);
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({is_init.is_initialized}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<bool>() == false);
  s = session.Run({read.value}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(Contains(s, "uninitialized"), s);
  BOOST_TEST(Contains(s, "'v'"), s);
  BOOST_TEST(Contains(s, "read_v"), s);

  s = session.Run({}, {}, {init.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({is_init.is_initialized, read.value}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<bool>() == true);
  BOOST_TEST(out[1].scalar<float>() == 3.f);

  s = session.Run({}, {}, {destroy.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({read.value}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  s = session.Run({is_init.is_initialized}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<bool>() == false);
}

BOOST_AUTO_TEST_CASE(gather_and_scatter_add_match_hand_computed_values) {
  Container c("rv_session_rows");
  Scope root = Scope::NewRootScope();
  auto table = ops::VarHandleOp(root, DT_FLOAT, PartialTensorShape({3, 2}), c.Attrs("table"));
  auto init =
      ops::AssignVariableOp(root, table, ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}));
  auto gather = ops::ResourceGather(root, table, ops::Const(root, {2, 0, 2}), DT_FLOAT);
  auto scatter = ops::ResourceScatterAdd(root, table, ops::Const(root, {1, 1}),
                                         ops::Const(root, {{1.f, 1.f}, {2.f, 2.f}}));
  auto read = ops::ReadVariableOp(root, table, DT_FLOAT);
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {init.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({gather.output}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].shape() == TensorShape({3, 2}));
  BOOST_TEST(Values(out[0]) == std::vector<float>({5, 6, 1, 2, 5, 6}),
             boost::test_tools::per_element());
  s = session.Run({}, {}, {scatter.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = session.Run({read.value}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(out[0]) == std::vector<float>({1, 2, 6, 7, 5, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(two_handles_with_one_shared_name_share_storage) {
  Container c("rv_session_shared");
  Scope root = Scope::NewRootScope();
  auto a = ops::VarHandleOp(root.WithOpName("a"), DT_FLOAT, PartialTensorShape({}), c.Attrs("w"));
  auto b = ops::VarHandleOp(root.WithOpName("b"), DT_FLOAT, PartialTensorShape({}), c.Attrs("w"));
  auto other =
      ops::VarHandleOp(root.WithOpName("other"), DT_FLOAT, PartialTensorShape({}), c.Attrs("x"));
  auto init = ops::AssignVariableOp(root, a, ops::Const(root, 5.f));
  auto is_init_other = ops::VarIsInitializedOp(root, other);
  auto read_b = ops::ReadVariableOp(root, b, DT_FLOAT);
  ClientSession session(root);
  Status s = session.Run({}, {}, {init.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  s = session.Run({read_b.value, is_init_other.is_initialized}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 5.f);
  BOOST_TEST(out[1].scalar<bool>() == false);
  // Another session of the process sees the same variable.
  ClientSession again(root);
  s = again.Run({read_b.value}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 5.f);
}

BOOST_AUTO_TEST_CASE(linear_regression_converges_with_resource_apply_gradient_descent) {
  Container c("rv_session_train");
  Scope root = Scope::NewRootScope();
  auto w = ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT, PartialTensorShape({}), c.Attrs("w"));
  auto b = ops::VarHandleOp(root.WithOpName("b"), DT_FLOAT, PartialTensorShape({}), c.Attrs("b"));
  auto init_w = ops::AssignVariableOp(root, w, ops::Const(root, 0.f));
  auto init_b = ops::AssignVariableOp(root, b, ops::Const(root, 0.f));
  auto x = ops::Const(root, {0.f, 1.f, 2.f, 3.f});
  auto y = ops::Const(root, {1.f, 3.f, 5.f, 7.f});  // y = 2x + 1
  auto pred = ops::Add(root, ops::Mul(root, ops::ReadVariableOp(root, w, DT_FLOAT), x),
                       ops::ReadVariableOp(root, b, DT_FLOAT));
  auto loss = ops::Mean(root, ops::Square(root, ops::Sub(root, pred, y)), ops::Const(root, {0}));
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {loss}, {w, b}, &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(grads.size() == 2u);
  auto lr = ops::Const(root, 0.1f);
  auto step_w = ops::ResourceApplyGradientDescent(root, w, lr, grads[0]);
  auto step_b = ops::ResourceApplyGradientDescent(root, b, lr, grads[1]);
  ClientSession session(root);
  s = session.Run({}, {}, {init_w.operation, init_b.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  // The first gradients by hand: d/dw mean((wx+b-y)^2) = 2 mean((wx+b-y) x).
  s = session.Run({grads[0], grads[1]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == -17.f, boost::test_tools::tolerance(1e-5f));
  BOOST_TEST(out[1].scalar<float>() == -8.f, boost::test_tools::tolerance(1e-5f));
  float first_loss = 0;
  for (int i = 0; i < 300; ++i) {
    s = session.Run({}, {loss}, {step_w.operation, step_b.operation}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    if (i == 0) first_loss = out[0].scalar<float>();
  }
  auto read_w = ops::ReadVariableOp(root, w, DT_FLOAT);
  auto read_b = ops::ReadVariableOp(root, b, DT_FLOAT);
  s = session.Run({read_w.value, read_b.value, loss}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(first_loss == 21.f, boost::test_tools::tolerance(1e-5f));
  BOOST_TEST(std::abs(out[0].scalar<float>() - 2.f) < 1e-3f, out[0].scalar<float>());
  BOOST_TEST(std::abs(out[1].scalar<float>() - 1.f) < 1e-3f, out[1].scalar<float>());
  BOOST_TEST(out[2].scalar<float>() < 1e-6f);
}

BOOST_AUTO_TEST_CASE(gather_gradient_is_the_rows_read) {
  Container c("rv_session_gather_grad");
  Scope root = Scope::NewRootScope();
  auto table = ops::VarHandleOp(root, DT_DOUBLE, PartialTensorShape({4, 2}), c.Attrs("table"));
  auto values = ops::Const(root, {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}, {7.0, 8.0}});
  auto init = ops::AssignVariableOp(root, table, values);
  auto ids = ops::Const(root, {3, 0, 3});
  auto weights = ops::Const(root, {{1.0, 10.0}, {100.0, 1000.0}, {2.0, 20.0}});
  auto picked = ops::ResourceGather(root, table, ids, DT_DOUBLE);
  auto loss = ops::Sum(root, ops::Mul(root, picked, weights), ops::Const(root, {0, 1}));
  std::vector<GradientValue> sparse;
  Status s = AddSymbolicGradients(root, {loss}, {table.resource}, &sparse);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(sparse[0].is_sparse());
  // The same loss through a plain Gather of the same values: its (checked)
  // gradient must agree with the resource one.
  auto plain = ops::Gather(root, values, ids);
  auto plain_loss = ops::Sum(root, ops::Mul(root, plain, weights), ops::Const(root, {0, 1}));
  std::vector<Output> plain_grad;
  s = AddSymbolicGradients(root, {plain_loss}, {values}, &plain_grad);
  BOOST_TEST_REQUIRE(s.ok(), s);
  Output dense = ToDense(root, sparse[0]);
  ClientSession session(root);
  s = session.Run({}, {}, {init.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  s = session.Run({dense, plain_grad[0], sparse[0].slices().indices}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const std::vector<double> want = {100, 1000, 0, 0, 0, 0, 3, 30};
  BOOST_TEST_REQUIRE(out[0].NumElements() == 8);
  for (int i = 0; i < 8; ++i) {
    BOOST_TEST(out[0].data<double>()[i] == want[i]);
    BOOST_TEST(out[1].data<double>()[i] == want[i]);
  }
  BOOST_TEST(out[2].NumElements() == 3);
}

BOOST_AUTO_TEST_CASE(a_handle_nothing_reads_gets_zeros_like_its_variable) {
  Container c("rv_session_unused_grad");
  Scope root = Scope::NewRootScope();
  auto used = ops::VarHandleOp(root, DT_FLOAT, PartialTensorShape({}), c.Attrs("used"));
  auto unused = ops::VarHandleOp(root, DT_FLOAT, PartialTensorShape({2}), c.Attrs("unused"));
  auto init = ops::AssignVariableOp(root, used, ops::Const(root, 2.f));
  auto init2 = ops::AssignVariableOp(root, unused, ops::Const(root, {1.f, 1.f}));
  auto loss = ops::Square(root, ops::ReadVariableOp(root, used, DT_FLOAT));
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root, {loss}, {used, unused}, &grads);
  BOOST_TEST_REQUIRE(s.ok(), s);
  ClientSession session(root);
  s = session.Run({}, {}, {init.operation, init2.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  s = session.Run({grads[0], grads[1]}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 4.f);
  BOOST_TEST(Values(out[1]) == std::vector<float>({0, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(ops_taking_a_handle_run_where_the_variable_lives) {
  Container c("rv_session_placement");
  Scope root = Scope::NewRootScope();
  SessionOptions options;
  options.num_cpu_devices = 2;
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  auto v = ops::VarHandleOp(root.WithOpName("v").WithDevice("/device:CPU:1"), DT_FLOAT,
                            PartialTensorShape({2}), c.Attrs("v"));
  // No device requested for any user: the resource edges pull them to CPU:1.
  auto init = ops::AssignVariableOp(root.WithOpName("init"), v, ops::Const(root, {1.f, 2.f}));
  auto add =
      ops::AssignAddVariableOp(root.WithOpName("add").WithControlDependencies({init.operation}), v,
                               ops::Const(root, {1.f, 1.f}));
  auto read = ops::ReadVariableOp(root.WithOpName("read").WithControlDependencies({add.operation}),
                                  v, DT_FLOAT);
  auto is_init = ops::VarIsInitializedOp(root.WithOpName("is_init"), v);
  ClientSession session(root, options);
  RunOptions run_options;
  run_options.trace_level = RunOptions::SOFTWARE_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  const Status s =
      session.Run(run_options, {}, {read.value, is_init.is_initialized}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Values(out[0]) == std::vector<float>({2, 3}), boost::test_tools::per_element());
  std::set<std::string> on_cpu1, elsewhere;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    for (const auto& n : dev.node_stats())
      (dev.device() == cpu1 ? on_cpu1 : elsewhere).insert(n.node_name());
  }
  for (const char* name : {"v", "init", "add", "read", "is_init"}) {
    BOOST_TEST(on_cpu1.count(name) == 1u, name << " did not run on CPU:1");
    BOOST_TEST(elsewhere.count(name) == 0u, name << " ran elsewhere too");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
