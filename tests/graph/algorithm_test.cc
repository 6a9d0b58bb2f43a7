#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

#include "graph/algorithm.h"
#include "graph_test_util.h"

namespace af {
namespace {

using testing::Contains;
using testing::ControlFlowTestRegistry;
using testing::ImportText;
using testing::OpT;
using testing::Placeholder;

// while (i < limit) i = i + one, written the way TensorFlow writes it: the
// Merge names the NextIteration defined after it. `back_op` is the op that
// closes the loop.
std::string CounterLoop(const std::string& back_op = "NextIteration") {
  return Placeholder("init", "DT_INT32") + Placeholder("limit", "DT_INT32") +
         Placeholder("one", "DT_INT32") +
         OpT("enter", "Enter", {"init"}, "DT_INT32",
             "attr { key: 'frame_name' value { s: 'loop' } } ") +
         OpT("merge", "Merge", {"enter", "next"}, "DT_INT32",
             "attr { key: 'N' value { i: 2 } } ") +
         OpT("less", "Less", {"merge", "limit"}, "DT_INT32") +
         "node { name: 'cond' op: 'LoopCond' input: 'less' } " +
         OpT("switch", "Switch", {"merge", "cond"}, "DT_INT32") +
         OpT("exit", "Exit", {"switch"}, "DT_INT32") +
         OpT("body", "Add", {"switch:1", "one"}, "DT_INT32") +
         OpT("next", back_op, {"body"}, "DT_INT32");
}

std::map<const Node*, size_t> Positions(const std::vector<Node*>& order) {
  std::map<const Node*, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  return pos;
}

// Every edge except those leaving NextIteration points forwards.
void CheckOrderRespectsEdges(const Graph& g, const std::vector<Node*>& order) {
  BOOST_REQUIRE_EQUAL(static_cast<int>(order.size()), g.num_nodes());
  auto pos = Positions(order);
  BOOST_REQUIRE_EQUAL(static_cast<int>(pos.size()), g.num_nodes());
  for (const Edge* e : g.edges()) {
    if (e->src()->IsNextIteration()) continue;
    BOOST_TEST(pos[e->src()] < pos[e->dst()], e->DebugString());
  }
}

BOOST_AUTO_TEST_CASE(topological_order_puts_inputs_first) {
  Graph g(ControlFlowTestRegistry());
  // Defined out of order on purpose: d needs b and c, which need a.
  Status s = ImportText(OpT("d", "Add", {"b", "c"}) + OpT("b", "Identity", {"a"}) +
                            OpT("c", "Identity", {"a", "^b"}) + Placeholder("a"),
                        &g);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  std::vector<Node*> order;
  BOOST_REQUIRE(TopologicalOrder(g, &order).ok());
  CheckOrderRespectsEdges(g, order);
  BOOST_TEST(order.front()->name() == "a");
  BOOST_TEST(order.back()->name() == "d");
  BOOST_TEST(ValidateNoIllegalCycles(g).ok());
}

BOOST_AUTO_TEST_CASE(loop_through_next_iteration_is_legal) {
  Graph g(ControlFlowTestRegistry());
  Status s = ImportText(CounterLoop(), &g);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(g.num_nodes() == 11);
  const Node* merge = g.FindNode("merge");
  BOOST_REQUIRE(merge != nullptr);
  BOOST_TEST(merge->IsMerge());
  BOOST_TEST(merge->num_outputs() == 2);
  const Edge* back = nullptr;
  BOOST_REQUIRE(merge->input_edge(1, &back).ok());
  BOOST_TEST(back->src()->name() == "next");
  BOOST_TEST(back->src()->IsNextIteration());

  std::vector<Node*> order;
  BOOST_REQUIRE(TopologicalOrder(g, &order).ok());
  CheckOrderRespectsEdges(g, order);
  auto pos = Positions(order);
  BOOST_TEST(pos[merge] < pos[g.FindNode("next")]);
  BOOST_TEST(ValidateNoIllegalCycles(g).ok());
}

BOOST_AUTO_TEST_CASE(loop_closed_by_another_op_is_rejected_naming_a_cycle_node) {
  Graph g(ControlFlowTestRegistry());
  Status s = ImportText(CounterLoop("Identity"), &g);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "cycle"), s.message());
  // Every cycle here passes merge and the closing node; exit only hangs off it.
  BOOST_TEST(Contains(s.message(), "'merge'"), s.message());
  BOOST_TEST(Contains(s.message(), "'next'"), s.message());
  BOOST_TEST(!Contains(s.message(), "'exit'"), s.message());
  BOOST_TEST(g.num_nodes() == 0);
}

BOOST_AUTO_TEST_CASE(control_edge_cycles_and_self_loops_are_rejected) {
  {
    Graph g(ControlFlowTestRegistry());
    Status s = ImportText("node { name: 'a' op: 'NoOp' input: '^b' } "
                          "node { name: 'b' op: 'NoOp' input: '^a' } ",
                          &g);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(Contains(s.message(), "'a'"), s.message());
    BOOST_TEST(Contains(s.message(), "'b'"), s.message());
  }
  {
    Graph g(ControlFlowTestRegistry());
    Status s = ImportText(OpT("self", "Identity", {"self"}), &g);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(Contains(s.message(), "'self'"), s.message());
  }
}

BOOST_AUTO_TEST_CASE(cycle_made_through_the_graph_api_is_found) {
  Graph g(ControlFlowTestRegistry());
  BOOST_REQUIRE(ImportText(Placeholder("x") + OpT("a", "Identity", {"x"}) +
                               OpT("b", "Identity", {"a"}) + OpT("c", "Identity", {"b"}),
                           &g)
                    .ok());
  BOOST_TEST(ValidateNoIllegalCycles(g).ok());
  Node* a = g.FindNode("a");
  Node* c = g.FindNode("c");
  g.AddControlEdge(c, a);
  std::vector<Node*> order;
  Status s = TopologicalOrder(g, &order);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(order.empty());
  for (const char* name : {"'a'", "'b'", "'c'"}) BOOST_TEST(Contains(s.message(), name), s.message());
  BOOST_TEST(!Contains(s.message(), "'x'"), s.message());
}

}  // namespace
}  // namespace af
