// Scope: names, name scopes, devices, control dependencies, colocation,
// sticky errors, shape inference at construction and GraphDef export.
#include <boost/test/unit_test.hpp>

#include "client/standard_ops.h"
#include "core/node_def_util.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(scope)

BOOST_AUTO_TEST_CASE(default_names_are_unique_per_op_type) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 1.0f);
  auto b = ops::Const(root, 2.0f);
  auto c = ops::Add(root, a, b);
  auto d = ops::Add(root, c, b);
  BOOST_TEST(root.ok());
  BOOST_TEST(a.node()->name() == "Const");
  BOOST_TEST(b.node()->name() == "Const_1");
  BOOST_TEST(c.node()->name() == "Add");
  BOOST_TEST(d.node()->name() == "Add_1");
}

BOOST_AUTO_TEST_CASE(op_names_and_nested_name_scopes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto x1 = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  BOOST_TEST(x.node()->name() == "x");
  BOOST_TEST(x1.node()->name() == "x_1");

  Scope a = root.NewSubScope("a");
  Scope ab = a.NewSubScope("b");
  auto y = ops::Neg(ab, x);
  auto z = ops::Neg(ab.WithOpName("z"), x);
  BOOST_TEST(y.node()->name() == "a/b/Neg");
  BOOST_TEST(z.node()->name() == "a/b/z");
  // A second sub-scope of the same name is made unique.
  Scope a2 = root.NewSubScope("a");
  auto w = ops::Neg(a2, x);
  BOOST_TEST(w.node()->name() == "a_1/Neg");
  BOOST_TEST(root.ok());
}

BOOST_AUTO_TEST_CASE(device_and_control_dependencies) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, 1.0f);
  auto noop = ops::NoOp(root);
  Scope dev = root.WithDevice("/device:CPU:0").WithControlDependencies({noop.operation});
  auto y = ops::Neg(dev, x);
  BOOST_TEST(y.node()->requested_device() == "/device:CPU:0");
  int control_in = 0;
  for (const Edge* e : y.node()->in_edges())
    if (e->IsControlEdge() && e->src() == noop.node()) ++control_in;
  BOOST_TEST(control_in == 1);
  auto z = ops::Neg(dev.WithNoControlDependencies(), x);
  for (const Edge* e : z.node()->in_edges()) BOOST_TEST(!e->IsControlEdge());
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(root.ToGraphDef(&def).ok());
  bool found = false;
  for (const auto& n : def.node()) {
    if (n.name() != y.node()->name()) continue;
    found = true;
    BOOST_TEST(n.input_size() == 2);
    BOOST_TEST(n.input(1) == "^" + noop.node()->name());
  }
  BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(colocation_writes_class_attr) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Placeholder(root.WithOpName("v"), DT_FLOAT);
  auto w = ops::Identity(root.ColocateWith(v).WithOpName("w"), v);
  std::vector<std::string> groups;
  BOOST_TEST_REQUIRE(GetNodeAttr(w.node()->def(), "_class", &groups).ok());
  BOOST_TEST(groups == std::vector<std::string>{"loc:@v"});
  // Colocating with a colocated op joins its group.
  auto u = ops::Identity(root.ColocateWith(w), w);
  groups.clear();
  BOOST_TEST_REQUIRE(GetNodeAttr(u.node()->def(), "_class", &groups).ok());
  BOOST_TEST(groups == std::vector<std::string>{"loc:@v"});
  auto t = ops::Identity(root.ColocateWith(w).ClearColocation(), w);
  BOOST_TEST(!HasNodeAttr(t.node()->def(), "_class"));
}

BOOST_AUTO_TEST_CASE(shape_inference_runs_at_construction) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({-1, 3}));
  auto b = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  auto m = ops::MatMul(root, a, b);
  BOOST_TEST(root.ok());
  BOOST_TEST(m.product.shape() == PartialTensorShape({-1, 2}));
  auto t = ops::MatMul(root, b, b, ops::MatMul::TransposeA(true));
  BOOST_TEST(t.product.shape() == PartialTensorShape({2, 2}));
}

BOOST_AUTO_TEST_CASE(shape_error_names_node_and_op_and_sticks) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  auto b = ops::Const(root, {{1.f, 2.f, 3.f}});
  auto bad = ops::MatMul(root.WithOpName("bad"), a, b);
  BOOST_TEST(!root.ok());
  BOOST_TEST(root.status().code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(root.status().message().find("'bad'") != std::string::npos, root.status());
  BOOST_TEST(root.status().message().find("MatMul") != std::string::npos, root.status());
  BOOST_TEST(!bad.operation.valid());
  BOOST_TEST(root.graph()->FindNode("bad") == nullptr);
  // Later ops in any scope of the graph are skipped; the first error stays.
  const Status first = root.status();
  auto later = ops::Neg(root.NewSubScope("s"), a);
  BOOST_TEST(!later.node());
  BOOST_TEST(root.status() == first);
  tensorflow::GraphDef def;
  BOOST_TEST(!root.ToGraphDef(&def).ok());
}

BOOST_AUTO_TEST_CASE(type_mismatch_is_reported) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 1.0f);
  auto b = ops::Const(root, 2.0);
  ops::Add(root.WithOpName("sum"), a, b);
  BOOST_TEST(!root.ok());
  BOOST_TEST(root.status().message().find("sum") != std::string::npos, root.status());
  BOOST_TEST(root.status().message().find("double") != std::string::npos, root.status());
}

BOOST_AUTO_TEST_CASE(missing_required_input_value_and_bad_names) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("bad name"), 1.0f);
  BOOST_TEST(root.status().code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(root.status().message().find("invalid node name") != std::string::npos);

  Scope other = Scope::NewRootScope();
  auto ragged = ops::Const(other, {{1.f, 2.f}, {3.f}});
  BOOST_TEST(!other.ok());
  BOOST_TEST(!ragged.valid());
}

BOOST_AUTO_TEST_CASE(outputs_from_another_graph_are_refused) {
  Scope g1 = Scope::NewRootScope();
  Scope g2 = Scope::NewRootScope();
  auto a = ops::Const(g1, 1.0f);
  ops::Neg(g2, a);
  BOOST_TEST(!g2.ok());
  BOOST_TEST(g2.status().message().find("another graph") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(value_inputs_become_consts) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Mul(root.WithOpName("y"), x, 2.0f);
  BOOST_TEST_REQUIRE(root.ok());
  BOOST_TEST(y.node()->name() == "y");
  const Edge* e = nullptr;
  BOOST_TEST_REQUIRE(y.node()->input_edge(1, &e).ok());
  BOOST_TEST(e->src()->type_string() == "Const");
  BOOST_TEST(e->src()->name() == "Const");

  auto list = ops::AddN(root, {x, x, 3.0f});
  BOOST_TEST_REQUIRE(root.ok());
  int64_t n = 0;
  BOOST_TEST_REQUIRE(GetNodeAttr(list.node()->def(), "N", &n).ok());
  BOOST_TEST(n == 3);
}

BOOST_AUTO_TEST_CASE(nested_initializers_make_matrices) {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, {{1, 2, 3}, {4, 5, 6}});
  BOOST_TEST_REQUIRE(root.ok());
  BOOST_TEST(m.type() == DT_INT32);
  BOOST_TEST(m.shape() == PartialTensorShape({2, 3}));
  auto filled = ops::Const(root, 0.5, TensorShape{2, 2});
  BOOST_TEST(filled.type() == DT_DOUBLE);
  BOOST_TEST(filled.shape() == PartialTensorShape({2, 2}));
  auto shaped = ops::Const<float>(root, {1.f, 2.f, 3.f, 4.f}, TensorShape{2, 2});
  BOOST_TEST(shaped.shape() == PartialTensorShape({2, 2}));
  ops::Const<float>(root, {1.f, 2.f, 3.f}, TensorShape{2, 2});
  BOOST_TEST(!root.ok());
}

BOOST_AUTO_TEST_CASE(imported_graph_names_are_respected) {
  Graph g;
  Scope root = Scope::NewRootScopeForGraph(&g);
  ops::Const(root.WithOpName("c"), 1.0f);
  Scope again = Scope::NewRootScopeForGraph(&g);
  auto c2 = ops::Const(again.WithOpName("c"), 1.0f);
  BOOST_TEST(again.ok());
  BOOST_TEST(c2.node()->name() == "c_1");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
