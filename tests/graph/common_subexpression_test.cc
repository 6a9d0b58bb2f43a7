// Common subexpression elimination on imported graphs: what merges, what
// must not, and where the consumers of a removed copy end up.
#include <boost/test/unit_test.hpp>

#include "graph/common_subexpression.h"
#include "optimizer_pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers

std::string FloatScalar(const std::string& name, float value, const std::string& extra = "") {
  return NodeText(name, "Const", {},
                  TypeAttr("dtype", "DT_FLOAT") +
                      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } "
                      "float_val: " +
                      std::to_string(value) + " } } } " + extra);
}

PassStats RunCse(Graph* g, const PassContext& context = {}) {
  return RunPass(&EliminateCommonSubexpressions, g, context);
}

// scale -> mul -> matmul -> relu -> neg, twice, from the same x and w.
std::string Branch(const std::string& p) {
  return FloatScalar(p + "scale", 2) + NodeT(p + "mul", "Mul", {"x", p + "scale"}) +
         NodeT(p + "matmul", "MatMul", {p + "mul", "w"}) +
         NodeT(p + "relu", "Relu", {p + "matmul"}) + NodeT(p + "neg", "Neg", {p + "relu"});
}

BOOST_AUTO_TEST_SUITE(common_subexpression)

BOOST_AUTO_TEST_CASE(a_duplicated_subgraph_of_five_nodes_folds_into_one) {
  Graph g;
  Build(Placeholder("x") + Placeholder("w") + Branch("a_") + Branch("b_") +
            NodeT("sum", "AddV2", {"a_neg", "b_neg"}) + Retval("out", "sum", 0),
        &g);
  const int before = g.num_nodes();
  PassStats stats = RunCse(&g);
  BOOST_TEST(g.num_nodes() == before - 5);
  BOOST_TEST(stats.nodes_removed == 5);
  for (const char* n : {"scale", "mul", "matmul", "relu", "neg"}) {
    BOOST_TEST(HasNode(g, std::string("a_") + n));
    BOOST_TEST(!HasNode(g, std::string("b_") + n));
  }
  BOOST_TEST(Input(g, "sum", 0)->name() == "a_neg");
  BOOST_TEST(Input(g, "sum", 1)->name() == "a_neg");
  BOOST_TEST(Input(g, "a_mul", 1)->name() == "a_scale");
  // The NodeDef follows the edges.
  const Node* sum = g.FindNode("sum");
  BOOST_TEST(sum->def().input(1) == "a_neg");
}

BOOST_AUTO_TEST_CASE(commutative_ops_merge_in_either_input_order) {
  Graph g;
  Build(Placeholder("a") + Placeholder("b") + NodeT("add1", "Add", {"a", "b"}) +
            NodeT("add2", "Add", {"b", "a"}) + NodeT("mul1", "Mul", {"a", "b"}) +
            NodeT("mul2", "Mul", {"b", "a"}) + NodeT("sub1", "Sub", {"a", "b"}) +
            NodeT("sub2", "Sub", {"b", "a"}),
        &g);
  RunCse(&g);
  BOOST_TEST(HasNode(g, "add1"));
  BOOST_TEST(!HasNode(g, "add2"));
  BOOST_TEST(HasNode(g, "mul1"));
  BOOST_TEST(!HasNode(g, "mul2"));
  BOOST_TEST(HasNode(g, "sub1"));
  BOOST_TEST(HasNode(g, "sub2"));
}

BOOST_AUTO_TEST_CASE(different_devices_attrs_or_colocation_keep_both) {
  Graph g;
  Build(Placeholder("a") + Placeholder("b") +
            NodeT("dev1", "Relu", {"a"}, "DT_FLOAT", Device(kCpu0)) +
            NodeT("dev2", "Relu", {"a"}, "DT_FLOAT", Device(kGpu0)) +
            NodeT("mm1", "MatMul", {"a", "b"}) +
            NodeT("mm2", "MatMul", {"a", "b"}, "DT_FLOAT", BoolAttr("transpose_a", true)) +
            NodeT("cls1", "Neg", {"a"}, "DT_FLOAT", ColocateWith("a")) +
            NodeT("cls2", "Neg", {"a"}, "DT_FLOAT", ColocateWith("b")) + FloatScalar("one", 1) +
            FloatScalar("two", 2),
        &g);
  const int before = g.num_nodes();
  PassStats stats = RunCse(&g);
  BOOST_TEST(g.num_nodes() == before);
  BOOST_TEST(stats.nodes_removed == 0);
}

BOOST_AUTO_TEST_CASE(an_explicit_default_attr_equals_the_filled_in_one) {
  Graph g;
  Build(Placeholder("a") + Placeholder("b") + NodeT("mm1", "MatMul", {"a", "b"}) +
            NodeT("mm2", "MatMul", {"a", "b"}, "DT_FLOAT", BoolAttr("transpose_b", false)),
        &g);
  RunCse(&g);
  BOOST_TEST(!HasNode(g, "mm2"));
}

BOOST_AUTO_TEST_CASE(equal_constants_merge_and_signed_zeros_do_not) {
  Graph g;
  Build(
      FloatScalar("c1", 3) + FloatScalar("c2", 3) + FloatScalar("pz", 0) + FloatScalar("nz", -0.0f),
      &g);
  RunCse(&g);
  BOOST_TEST(HasNode(g, "c1"));
  BOOST_TEST(!HasNode(g, "c2"));
  BOOST_TEST(HasNode(g, "pz"));
  BOOST_TEST(HasNode(g, "nz"));
}

BOOST_AUTO_TEST_CASE(stateful_ops_never_merge) {
  Graph g;
  Build(NodeText("shape", "Const", {},
                 TypeAttr("dtype", "DT_INT32") +
                     "attr { key: 'value' value { tensor { dtype: DT_INT32 "
                     "tensor_shape { dim { size: 1 } } int_val: 3 } } } ") +
            NodeText("r1", "RandomUniform", {"shape"},
                     TypeAttr("T", "DT_INT32") + TypeAttr("dtype", "DT_FLOAT")) +
            NodeText("r2", "RandomUniform", {"shape"},
                     TypeAttr("T", "DT_INT32") + TypeAttr("dtype", "DT_FLOAT")),
        &g);
  RunCse(&g);
  BOOST_TEST(HasNode(g, "r1"));
  BOOST_TEST(HasNode(g, "r2"));
}

BOOST_AUTO_TEST_CASE(nodes_inside_a_while_loop_never_merge) {
  Graph g;
  Build(CounterLoop() + NodeT("dup1", "Add", {"body", "one"}, "DT_INT32") +
            NodeT("dup2", "Add", {"body", "one"}, "DT_INT32"),
        &g);
  const int before = g.num_nodes();
  RunCse(&g);
  BOOST_TEST(g.num_nodes() == before);
  BOOST_TEST(HasNode(g, "dup1"));
  BOOST_TEST(HasNode(g, "dup2"));
}

BOOST_AUTO_TEST_CASE(control_inputs_must_match_as_a_set) {
  Graph g;
  // Control sources that cannot merge with each other (two bare NoOps
  // would).
  Build(Placeholder("a") + NodeT("n1", "Relu", {"a"}) + NodeT("n2", "Neg", {"a"}) +
            NodeT("same1", "Relu", {"a", "^n1", "^n2"}) +
            NodeT("same2", "Relu", {"a", "^n2", "^n1"}) + NodeT("other", "Relu", {"a", "^n1"}),
        &g);
  RunCse(&g);
  BOOST_TEST(HasNode(g, "same1"));
  BOOST_TEST(!HasNode(g, "same2"));
  BOOST_TEST(HasNode(g, "other"));
}

BOOST_AUTO_TEST_CASE(control_successors_of_the_copy_move_to_the_kept_node) {
  Graph g;
  Build(Placeholder("a") + NodeT("r1", "Relu", {"a"}) + NodeT("r2", "Relu", {"a"}) +
            NodeText("after", "NoOp", {"^r2"}),
        &g);
  RunCse(&g);
  BOOST_TEST_REQUIRE(!HasNode(g, "r2"));
  const Node* after = g.FindNode("after");
  BOOST_TEST_REQUIRE(after->in_edges().size() == 1u);
  BOOST_TEST(after->in_edges()[0]->IsControlEdge());
  BOOST_TEST(after->in_edges()[0]->src()->name() == "r1");
  BOOST_TEST(after->def().input(0) == "^r1");
}

BOOST_AUTO_TEST_CASE(a_preserved_duplicate_is_kept_and_takes_the_consumers) {
  Graph g;
  Build(Placeholder("a") + NodeT("r1", "Relu", {"a"}) + NodeT("r2", "Relu", {"a"}) +
            NodeT("use1", "Neg", {"r1"}) + NodeT("use2", "Neg", {"r2"}),
        &g);
  PassContext context;
  context.preserved = {"r2"};
  RunCse(&g, context);
  BOOST_TEST(!HasNode(g, "r1"));
  BOOST_TEST(HasNode(g, "r2"));
  // The consumers then were equal, and merged in a second sweep.
  BOOST_TEST(Input(g, "use1", 0)->name() == "r2");
  BOOST_TEST(!HasNode(g, "use2"));
}

BOOST_AUTO_TEST_CASE(two_preserved_duplicates_both_stay) {
  Graph g;
  Build(Placeholder("a") + NodeT("r1", "Relu", {"a"}) + NodeT("r2", "Relu", {"a"}) +
            NodeT("r3", "Relu", {"a"}),
        &g);
  PassContext context;
  context.preserved = {"r1", "r2"};
  RunCse(&g, context);
  BOOST_TEST(HasNode(g, "r1"));
  BOOST_TEST(HasNode(g, "r2"));
  BOOST_TEST(!HasNode(g, "r3"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
