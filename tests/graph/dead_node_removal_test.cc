// Dead nodes, Identity chains and relay NoOps: what goes, what must stay,
// and that the orderings control edges expressed survive the rewiring.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "graph/dead_node_removal.h"
#include "optimizer_pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers

PassStats RunChains(Graph* g, const PassContext& context = {}) {
  return RunPass(&RemoveIdentityChains, g, context);
}

// Names of the nodes with a control edge into `node`, sorted.
std::vector<std::string> ControlInputs(const Graph& g, const std::string& node) {
  std::vector<std::string> out;
  for (const Edge* e : g.FindNode(node)->in_edges())
    if (e->IsControlEdge()) out.push_back(e->src()->name());
  std::sort(out.begin(), out.end());
  return out;
}

BOOST_AUTO_TEST_SUITE(dead_node_removal)

BOOST_AUTO_TEST_CASE(nodes_reaching_no_retval_target_or_stateful_node_go) {
  Graph g;
  Build(Placeholder("a") + NodeT("used", "Relu", {"a"}) + NodeT("unused", "Neg", {"a"}) +
            NodeT("unused2", "Relu", {"unused"}) + Retval("out", "used", 0) +
            NodeT("target", "Neg", {"a"}) + NodeT("to_var", "Relu", {"a"}) +
            NodeText("var", "VariableV2", {},
                     TypeAttr("dtype", "DT_FLOAT") + "attr { key: 'shape' value { shape { } } } ") +
            // Not marked stateful, but writes through its reference input.
            NodeT("assign", "Assign", {"var", "to_var"}),
        &g);
  PassContext context;
  context.preserved = {"target"};
  PassStats stats;
  Status s = RemoveDeadNodes(&g, context, &stats);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(!HasNode(g, "unused"));
  BOOST_TEST(!HasNode(g, "unused2"));
  BOOST_TEST(stats.nodes_removed == 2);
  for (const char* n : {"a", "used", "out", "target", "to_var", "var", "assign"})
    BOOST_TEST(HasNode(g, n), n);
}

BOOST_AUTO_TEST_CASE(an_identity_chain_collapses_onto_its_source) {
  Graph g;
  Build(Placeholder("a") + NodeT("id1", "Identity", {"a"}) + NodeT("id2", "Identity", {"id1"}) +
            NodeT("b", "Relu", {"id2"}) + NodeT("id3", "Identity", {"b"}) + Retval("out", "id3", 0),
        &g);
  PassStats stats = RunChains(&g);
  BOOST_TEST(!HasNode(g, "id1"));
  BOOST_TEST(!HasNode(g, "id2"));
  BOOST_TEST(!HasNode(g, "id3"));
  BOOST_TEST(stats.nodes_removed == 3);
  BOOST_TEST(Input(g, "b", 0)->name() == "a");
  BOOST_TEST(g.FindNode("b")->def().input(0) == "a");
  // The _Retval reads the source once the Identity in front of it goes.
  BOOST_TEST(Input(g, "out", 0)->name() == "b");
}

BOOST_AUTO_TEST_CASE(a_cross_device_identity_stays) {
  Graph g;
  Build(Placeholder("a", "DT_FLOAT", Device(kCpu0)) +
            NodeT("to_gpu", "Identity", {"a"}, "DT_FLOAT", Device(kGpu0)) +
            NodeT("same", "Identity", {"to_gpu"}, "DT_FLOAT", Device(kGpu0)) +
            NodeT("b", "Relu", {"same"}, "DT_FLOAT", Device(kGpu0)),
        &g);
  RunChains(&g);
  BOOST_TEST(HasNode(g, "to_gpu"));
  BOOST_TEST(!HasNode(g, "same"));
  BOOST_TEST(Input(g, "b", 0)->name() == "to_gpu");
}

BOOST_AUTO_TEST_CASE(a_preserved_identity_stays) {
  Graph g;
  Build(Placeholder("a") + NodeT("fetched", "Identity", {"a"}) + Retval("out", "fetched", 0), &g);
  PassContext context;
  context.preserved = {"fetched"};
  RunChains(&g, context);
  BOOST_TEST(HasNode(g, "fetched"));
  BOOST_TEST(Input(g, "out", 0)->name() == "fetched");
}

BOOST_AUTO_TEST_CASE(an_identity_with_a_control_input_stays) {
  Graph g;
  // Control sources that stay (a NoOp without inputs would go first).
  Build(Placeholder("a") + NodeT("first", "Relu", {"a"}) + NodeT("second", "Neg", {"a"}) +
            NodeT("waits", "Identity", {"a", "^first", "^second"}) + NodeT("b", "Relu", {"waits"}),
        &g);
  RunChains(&g);
  BOOST_TEST(HasNode(g, "waits"));
}

BOOST_AUTO_TEST_CASE(control_successors_of_a_removed_identity_depend_on_its_source) {
  Graph g;
  Build(Placeholder("a") + NodeT("id", "Identity", {"a"}) + NodeT("b", "Relu", {"a", "^id"}), &g);
  RunChains(&g);
  BOOST_TEST(!HasNode(g, "id"));
  BOOST_TEST(ControlInputs(g, "b") == std::vector<std::string>{"a"});
}

BOOST_AUTO_TEST_CASE(an_identity_inside_a_loop_stays) {
  Graph g;
  Build(CounterLoop(), &g);
  RunChains(&g);
  BOOST_TEST(HasNode(g, "body"));
}

BOOST_AUTO_TEST_CASE(a_cond_pivot_identity_with_control_successors_stays) {
  // body is dead when pred is false, and so is `one`, which waits on it; a
  // control edge from the Switch itself would always be live.
  Graph g;
  Build(ScalarInt("x", 1) +
            NodeText("pred", "Const", {},
                     TypeAttr("dtype", "DT_BOOL") +
                         "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape { } "
                         "bool_val: false } } } ") +
            NodeT("switch", "Switch", {"x", "pred"}, "DT_INT32") +
            NodeT("pivot", "Identity", {"switch:1"}, "DT_INT32") + ScalarInt("one", 1, {"^pivot"}) +
            NodeT("plain", "Identity", {"switch:0"}, "DT_INT32") +
            NodeT("sum", "Add", {"plain", "one"}, "DT_INT32"),
        &g);
  RunChains(&g);
  BOOST_TEST(HasNode(g, "pivot"));
  BOOST_TEST(!HasNode(g, "plain"));
  BOOST_TEST(Input(g, "sum", 0)->name() == "switch");
}

BOOST_AUTO_TEST_CASE(a_relay_noop_goes_and_the_ordering_stays) {
  Graph g;
  Build(Placeholder("a") + NodeT("first", "Relu", {"a"}) + NodeText("relay", "NoOp", {"^first"}) +
            NodeT("b", "Neg", {"a", "^relay"}) + NodeT("c", "Relu", {"a", "^relay", "^first"}),
        &g);
  RunChains(&g);
  BOOST_TEST(!HasNode(g, "relay"));
  BOOST_TEST(ControlInputs(g, "b") == std::vector<std::string>{"first"});
  // Already ordered after `first`: no second edge.
  BOOST_TEST(ControlInputs(g, "c") == std::vector<std::string>{"first"});
  BOOST_TEST(g.FindNode("b")->def().input(1) == "^first");
}

BOOST_AUTO_TEST_CASE(a_noop_without_inputs_goes_and_one_joining_two_stays) {
  Graph g;
  Build(Placeholder("a") + NodeT("p", "Relu", {"a"}) + NodeT("q", "Neg", {"a"}) +
            NodeText("start", "NoOp") + NodeText("join", "NoOp", {"^p", "^q"}) +
            NodeT("b", "Relu", {"a", "^start"}) + NodeT("c", "Neg", {"a", "^join"}),
        &g);
  RunChains(&g);
  BOOST_TEST(!HasNode(g, "start"));
  BOOST_TEST(ControlInputs(g, "b").empty());
  BOOST_TEST(HasNode(g, "join"));
  BOOST_TEST(ControlInputs(g, "c") == std::vector<std::string>{"join"});
}

BOOST_AUTO_TEST_CASE(a_preserved_noop_stays) {
  Graph g;
  Build(Placeholder("a") + NodeT("p", "Relu", {"a"}) + NodeText("train", "NoOp", {"^p"}), &g);
  PassContext context;
  context.preserved = {"train"};
  RunChains(&g, context);
  BOOST_TEST(HasNode(g, "train"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
