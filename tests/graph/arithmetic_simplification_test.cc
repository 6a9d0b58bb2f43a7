// Exact arithmetic rewrites: each rule fires on its pattern, and each guard
// (shape, value, permutation, preservation, dependencies) stops it.
#include <boost/test/unit_test.hpp>

#include <iomanip>
#include <sstream>

#include "graph/arithmetic_simplification.h"
#include "optimizer_pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers

std::string ShapeText(std::initializer_list<int64_t> dims) {
  std::string s = "tensor_shape { ";
  for (int64_t d : dims) s += "dim { size: " + std::to_string(d) + " } ";
  return s + "} ";
}

// A Placeholder of known shape.
std::string Input(const std::string& name, std::initializer_list<int64_t> dims,
                  const std::string& dtype = "DT_FLOAT") {
  std::string shape = "attr { key: 'shape' value { shape { ";
  for (int64_t d : dims) shape += "dim { size: " + std::to_string(d) + " } ";
  return Placeholder(name, dtype, shape + "} } } ");
}

std::string FloatConst(const std::string& name, std::initializer_list<int64_t> dims,
                       std::initializer_list<float> values,
                       std::initializer_list<std::string> inputs = {}) {
  std::string v;
  for (float f : values) {
    std::ostringstream os;
    os << std::setprecision(9) << f;  // 1.0000001f must not print as 1
    v += "float_val: " + os.str() + " ";
  }
  return NodeText(name, "Const", inputs,
                  TypeAttr("dtype", "DT_FLOAT") +
                      "attr { key: 'value' value { tensor { dtype: DT_FLOAT " + ShapeText(dims) +
                      v + "} } } ");
}

std::string IntConst(const std::string& name, std::initializer_list<int64_t> dims,
                     std::initializer_list<int> values) {
  std::string v;
  for (int i : values) v += "int_val: " + std::to_string(i) + " ";
  return NodeText(name, "Const", {},
                  TypeAttr("dtype", "DT_INT32") +
                      "attr { key: 'value' value { tensor { dtype: DT_INT32 " + ShapeText(dims) +
                      v + "} } } ");
}

PassStats Simplify(Graph* g, const PassContext& context = {}) {
  return RunPass(&SimplifyArithmetic, g, context);
}

std::string InputOf(const Graph& g, const std::string& node, int index = 0) {
  const Node* n = g.FindNode(node);
  BOOST_REQUIRE_MESSAGE(n != nullptr, "no node " << node);
  const Edge* e = nullptr;
  BOOST_REQUIRE(n->input_edge(index, &e).ok());
  return e->src()->name();
}

BOOST_AUTO_TEST_SUITE(arithmetic_simplification)

BOOST_AUTO_TEST_CASE(each_neutral_operand_rule_hands_consumers_x) {
  Graph g;
  Build(Input("x", {2, 3}) + FloatConst("one", {}, {1}) + FloatConst("zero", {}, {0}) +
            NodeT("mul_r", "Mul", {"x", "one"}) + NodeT("mul_l", "Mul", {"one", "x"}) +
            NodeT("add_r", "Add", {"x", "zero"}) + NodeT("add_l", "AddV2", {"zero", "x"}) +
            NodeT("sub", "Sub", {"x", "zero"}) + NodeT("realdiv", "RealDiv", {"x", "one"}) +
            NodeT("div", "Div", {"x", "one"}) + NodeT("u1", "Neg", {"mul_r"}) +
            NodeT("u2", "Neg", {"mul_l"}) + NodeT("u3", "Neg", {"add_r"}) +
            NodeT("u4", "Neg", {"add_l"}) + NodeT("u5", "Neg", {"sub"}) +
            NodeT("u6", "Neg", {"realdiv"}) + NodeT("u7", "Neg", {"div"}),
        &g);
  PassStats stats = Simplify(&g);
  for (int i = 1; i <= 7; ++i) BOOST_TEST(InputOf(g, "u" + std::to_string(i)) == "x", i);
  // The seven nodes and the two constants they alone used.
  BOOST_TEST(stats.nodes_removed == 9);
  BOOST_TEST(g.num_nodes() == 8);
  BOOST_TEST(g.FindNode("u1")->def().input(0) == "x");
}

BOOST_AUTO_TEST_CASE(integer_multiply_and_add_fire_but_integer_division_does_not) {
  Graph g;
  Build(Input("x", {4}, "DT_INT32") + IntConst("one", {}, {1}) +
            IntConst("zero", {4}, {0, 0, 0, 0}) + NodeT("mul", "Mul", {"x", "one"}, "DT_INT32") +
            NodeT("add", "Add", {"zero", "x"}, "DT_INT32") +
            NodeT("div", "Div", {"x", "one"}, "DT_INT32") +
            NodeT("u1", "Neg", {"mul"}, "DT_INT32") + NodeT("u2", "Neg", {"add"}, "DT_INT32") +
            NodeT("u3", "Neg", {"div"}, "DT_INT32"),
        &g);
  Simplify(&g);
  BOOST_TEST(InputOf(g, "u1") == "x");
  BOOST_TEST(InputOf(g, "u2") == "x");
  BOOST_TEST(InputOf(g, "u3") == "div");
  BOOST_TEST(HasNode(g, "one"));  // still read by div
}

BOOST_AUTO_TEST_CASE(a_broadcast_that_changes_the_shape_is_kept) {
  Graph g;
  Build(Input("x", {3}) + FloatConst("ones", {2, 3}, {1, 1, 1, 1, 1, 1}) +
            NodeT("grows", "Mul", {"x", "ones"}) + Input("y", {2, 3}) +
            NodeT("same", "Mul", {"y", "ones"}) + NodeT("u1", "Neg", {"grows"}) +
            NodeT("u2", "Neg", {"same"}),
        &g);
  Simplify(&g);
  BOOST_TEST(InputOf(g, "u1") == "grows");
  BOOST_TEST(InputOf(g, "u2") == "y");
}

BOOST_AUTO_TEST_CASE(an_unknown_shape_is_kept) {
  Graph g;
  Build(Placeholder("x") + FloatConst("one", {}, {1}) + NodeT("mul", "Mul", {"x", "one"}) +
            NodeT("u", "Neg", {"mul"}),
        &g);
  Simplify(&g);
  BOOST_TEST(InputOf(g, "u") == "mul");
}

BOOST_AUTO_TEST_CASE(values_not_exactly_neutral_are_kept) {
  Graph g;
  Build(Input("x", {2}) + FloatConst("almost", {2}, {1, 1.0000001f}) +
            FloatConst("mixed", {2}, {1, 2}) + FloatConst("zero", {}, {0}) +
            FloatConst("one", {}, {1}) + NodeT("m1", "Mul", {"x", "almost"}) +
            NodeT("m2", "Mul", {"x", "mixed"}) + NodeT("times_zero", "Mul", {"x", "zero"}) +
            NodeT("zero_minus", "Sub", {"zero", "x"}) + NodeT("one_over", "RealDiv", {"one", "x"}) +
            NodeT("plus_one", "Add", {"x", "one"}),
        &g);
  const int before = g.num_nodes();
  PassStats stats = Simplify(&g);
  BOOST_TEST(g.num_nodes() == before);
  BOOST_TEST(stats.nodes_removed == 0);
}

BOOST_AUTO_TEST_CASE(preserved_nodes_and_lost_dependencies_are_kept) {
  Graph g;
  Build(Input("x", {2}) + FloatConst("one", {}, {1}) + NodeText("gate", "NoOp") +
            FloatConst("gated_one", {}, {1}, {"^gate"}) + NodeT("fetched", "Mul", {"x", "one"}) +
            NodeT("waits", "Mul", {"x", "one", "^gate"}) +
            NodeT("gated", "Mul", {"x", "gated_one"}) + NodeT("u1", "Neg", {"fetched"}) +
            NodeT("u2", "Neg", {"waits"}) + NodeT("u3", "Neg", {"gated"}),
        &g);
  PassContext context;
  context.preserved = {"fetched"};
  Simplify(&g, context);
  BOOST_TEST(InputOf(g, "u1") == "fetched");
  BOOST_TEST(InputOf(g, "u2") == "waits");
  BOOST_TEST(InputOf(g, "u3") == "gated");
}

BOOST_AUTO_TEST_CASE(control_successors_move_to_the_source_of_x) {
  Graph g;
  Build(Input("x", {2}) + FloatConst("one", {}, {1}) + NodeT("mul", "Mul", {"x", "one"}) +
            NodeT("u", "Neg", {"mul"}) + NodeText("after", "NoOp", {"^mul"}),
        &g);
  Simplify(&g);
  BOOST_TEST(!HasNode(g, "mul"));
  const Node* after = g.FindNode("after");
  BOOST_TEST_REQUIRE(after->in_edges().size() == 1u);
  BOOST_TEST(after->in_edges()[0]->IsControlEdge());
  BOOST_TEST(after->in_edges()[0]->src()->name() == "x");
}

BOOST_AUTO_TEST_CASE(a_chain_of_rewrites_collapses_in_one_pass) {
  Graph g;
  Build(Input("x", {2, 2}) + FloatConst("one", {}, {1}) + FloatConst("zero", {}, {0}) +
            NodeT("mul", "Mul", {"x", "one"}) + NodeT("add", "AddV2", {"mul", "zero"}) +
            NodeT("sub", "Sub", {"add", "zero"}) + NodeT("u", "Neg", {"sub"}),
        &g);
  PassStats stats = Simplify(&g);
  BOOST_TEST(InputOf(g, "u") == "x");
  BOOST_TEST(stats.nodes_removed == 5);
}

BOOST_AUTO_TEST_CASE(a_transpose_undone_by_the_next_is_bypassed) {
  Graph g;
  Build(Input("x", {2, 3, 4}) + IntConst("p1", {3}, {1, 2, 0}) + IntConst("p2", {3}, {2, 0, 1}) +
            NodeT("t1", "Transpose", {"x", "p1"}) + NodeT("t2", "Transpose", {"t1", "p2"}) +
            NodeT("u", "Neg", {"t2"}),
        &g);
  PassStats stats = Simplify(&g);
  BOOST_TEST(InputOf(g, "u") == "x");
  BOOST_TEST(stats.nodes_removed == 4);
  BOOST_TEST(g.num_nodes() == 2);
}

BOOST_AUTO_TEST_CASE(a_transpose_pair_that_still_permutes_is_kept) {
  Graph g;
  Build(Input("x", {2, 3, 4}) + IntConst("p", {3}, {1, 2, 0}) +
            NodeT("t1", "Transpose", {"x", "p"}) + NodeT("t2", "Transpose", {"t1", "p"}) +
            NodeT("u", "Neg", {"t2"}),
        &g);
  Simplify(&g);
  BOOST_TEST(InputOf(g, "u") == "t2");
}

BOOST_AUTO_TEST_CASE(an_inner_transpose_with_other_consumers_stays) {
  Graph g;
  Build(Input("x", {2, 3}) + IntConst("p", {2}, {1, 0}) + NodeT("t1", "Transpose", {"x", "p"}) +
            NodeT("t2", "Transpose", {"t1", "p"}) + NodeT("u", "Neg", {"t2"}) +
            NodeT("other", "Neg", {"t1"}),
        &g);
  Simplify(&g);
  BOOST_TEST(InputOf(g, "u") == "x");
  BOOST_TEST(!HasNode(g, "t2"));
  BOOST_TEST(InputOf(g, "other") == "t1");
  BOOST_TEST(HasNode(g, "p"));
}

BOOST_AUTO_TEST_CASE(a_reshape_to_the_same_shape_is_bypassed_and_others_are_not) {
  Graph g;
  Build(Input("x", {2, 3}) + Placeholder("unknown") + IntConst("same", {2}, {2, 3}) +
            IntConst("flipped", {2}, {3, 2}) + NodeT("r1", "Reshape", {"x", "same"}) +
            NodeT("r2", "Reshape", {"x", "flipped"}) + NodeT("r3", "Reshape", {"unknown", "same"}) +
            NodeT("u1", "Neg", {"r1"}) + NodeT("u2", "Neg", {"r2"}) + NodeT("u3", "Neg", {"r3"}),
        &g);
  Simplify(&g);
  BOOST_TEST(InputOf(g, "u1") == "x");
  BOOST_TEST(InputOf(g, "u2") == "r2");
  BOOST_TEST(InputOf(g, "u3") == "r3");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
