#include <boost/test/unit_test.hpp>

#include <set>

#include "core/node_def_util.h"
#include "graph_test_util.h"

namespace af {
namespace {

using testing::Contains;
using testing::ControlFlowTestRegistry;
using testing::ImportText;
using testing::OpT;
using testing::Placeholder;

tensorflow::NodeDef MakeNode(const std::string& name, const std::string& op) {
  tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op(op);
  return def;
}

BOOST_AUTO_TEST_CASE(add_node_fills_defaults_and_resolves_types) {
  Graph g(ControlFlowTestRegistry());
  tensorflow::NodeDef def = MakeNode("e", "Enter");
  def.add_input("x");
  SetAttr(&def, "T", DT_INT32);
  SetAttr(&def, "frame_name", "f");
  Node* n = nullptr;
  Status s = g.AddNode(def, &n);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(n->name() == "e");
  BOOST_TEST(n->type_string() == "Enter");
  BOOST_TEST(n->IsEnter());
  BOOST_TEST(n->IsControlFlow());
  BOOST_TEST(!n->IsStateful());
  BOOST_TEST(n->input_types() == DataTypeVector{DT_INT32});
  BOOST_TEST(n->output_types() == DataTypeVector{DT_INT32});
  BOOST_TEST(HasNodeAttr(n->def(), "parallel_iterations"));  // default filled in
  BOOST_TEST(n->def().input_size() == 1);                     // kept as written
  BOOST_TEST(n->in_edges().empty());                          // but no edge yet
  BOOST_TEST(n->output_shapes().size() == 1u);
  BOOST_TEST(n->output_shapes()[0].unknown_rank());
  BOOST_TEST(g.num_nodes() == 1);
  BOOST_TEST(g.FindNode("e") == n);
  BOOST_TEST(g.FindNodeId(n->id()) == n);
}

BOOST_AUTO_TEST_CASE(add_node_rejects_unknown_ops_duplicates_and_bad_attrs) {
  Graph g(ControlFlowTestRegistry());
  Node* n = nullptr;
  Status s = g.AddNode(MakeNode("a", "NotAnOp"), &n);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(s.message(), "'a'"), s.message());
  BOOST_TEST(Contains(s.message(), "NotAnOp"), s.message());

  BOOST_REQUIRE(g.AddNode(MakeNode("a", "NoOp"), &n).ok());
  s = g.AddNode(MakeNode("a", "NoOp"), &n);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "'a'"), s.message());
  BOOST_TEST(Contains(s.message(), "duplicate"), s.message());

  tensorflow::NodeDef bad = MakeNode("p", "Placeholder");  // dtype missing
  s = g.AddNode(bad, &n);
  BOOST_TEST(!s.ok());
  BOOST_TEST(Contains(s.message(), "p"), s.message());

  BOOST_TEST(g.num_nodes() == 1);  // failures added nothing
  BOOST_TEST(g.FindNode("p") == nullptr);
}

BOOST_AUTO_TEST_CASE(edges_are_visible_from_both_ends) {
  Graph g(ControlFlowTestRegistry());
  BOOST_REQUIRE(ImportText(Placeholder("a") + Placeholder("b") + OpT("sum", "Add", {"a", "b", "^a"}),
                           &g)
                    .ok());
  Node* sum = g.FindNode("sum");
  BOOST_TEST(sum->in_edges().size() == 3u);
  const Edge* in1 = nullptr;
  BOOST_REQUIRE(sum->input_edge(1, &in1).ok());
  BOOST_TEST(in1->src()->name() == "b");
  BOOST_TEST(in1->DebugString() == "b:0 -> sum:1");
  const Edge* missing = nullptr;
  BOOST_TEST(sum->input_edge(2, &missing).code() == Code::NOT_FOUND);

  std::set<std::string> edges;
  for (const Edge* e : g.edges()) edges.insert(e->DebugString());
  BOOST_TEST(edges == (std::set<std::string>{"a:0 -> sum:0", "b:0 -> sum:1", "^a -> sum"}));
  BOOST_TEST(g.FindNode("a")->out_edges().size() == 2u);
}

BOOST_AUTO_TEST_CASE(remove_edge_and_remove_node) {
  Graph g(ControlFlowTestRegistry());
  BOOST_REQUIRE(ImportText(Placeholder("a") + OpT("b", "Identity", {"a"}) +
                               OpT("c", "Identity", {"b", "^a"}),
                           &g)
                    .ok());
  Node* a = g.FindNode("a");
  Node* b = g.FindNode("b");
  Node* c = g.FindNode("c");
  BOOST_REQUIRE_EQUAL(g.edges().size(), 3u);

  const Edge* ctrl = c->in_edges().back();
  BOOST_REQUIRE(ctrl->IsControlEdge());
  const int ctrl_id = ctrl->id();
  g.RemoveEdge(ctrl);
  BOOST_TEST(g.edges().size() == 2u);
  BOOST_TEST(c->in_edges().size() == 1u);
  BOOST_TEST(a->out_edges().size() == 1u);
  BOOST_TEST(g.num_edge_ids() > ctrl_id);  // ids are not reused

  const int b_id = b->id();
  g.RemoveNode(b);
  BOOST_TEST(g.num_nodes() == 2);
  BOOST_TEST(g.FindNode("b") == nullptr);
  BOOST_TEST(g.FindNodeId(b_id) == nullptr);
  BOOST_TEST(g.edges().empty());
  BOOST_TEST(a->out_edges().empty());
  BOOST_TEST(c->in_edges().empty());
  BOOST_TEST(g.nodes().size() == 2u);
  BOOST_TEST(g.nodes()[0] == a);
  BOOST_TEST(g.nodes()[1] == c);

  // The name is free again.
  tensorflow::NodeDef again = MakeNode("b", "NoOp");
  Node* n = nullptr;
  BOOST_TEST(g.AddNode(again, &n).ok());
  BOOST_TEST(n->id() != b_id);
}

BOOST_AUTO_TEST_CASE(remove_node_with_a_self_loop) {
  Graph g(ControlFlowTestRegistry());
  BOOST_REQUIRE(ImportText(Placeholder("a") + OpT("b", "Identity", {"a"}), &g).ok());
  Node* b = g.FindNode("b");
  g.AddControlEdge(b, b);
  g.AddControlEdge(b, g.FindNode("a"));
  BOOST_TEST(g.edges().size() == 3u);
  g.RemoveNode(b);
  BOOST_TEST(g.edges().empty());
  BOOST_TEST(g.FindNode("a")->in_edges().empty());
  BOOST_TEST(g.FindNode("a")->out_edges().empty());
}

BOOST_AUTO_TEST_CASE(new_name_avoids_existing_names) {
  Graph g(ControlFlowTestRegistry());
  BOOST_TEST(g.NewName("x") == "x");
  Node* n = nullptr;
  BOOST_REQUIRE(g.AddNode(MakeNode("x", "NoOp"), &n).ok());
  BOOST_TEST(g.NewName("x") == "x_1");
  BOOST_REQUIRE(g.AddNode(MakeNode("x_1", "NoOp"), &n).ok());
  BOOST_TEST(g.NewName("x") == "x_2");
  BOOST_TEST(g.NewName("y") == "y");
}

BOOST_AUTO_TEST_CASE(to_graph_def_rebuilds_inputs_from_edges) {
  Graph g(ControlFlowTestRegistry());
  BOOST_REQUIRE(ImportText(Placeholder("a", "DT_BOOL") + Placeholder("v") + "node { name: 'n' op: 'NoOp' } " +
                               OpT("s", "Switch", {"v:0", "a", "^n"}) +
                               OpT("t", "Identity", {"s:1", "^n", "^a"}),
                           &g)
                    .ok());
  g.FindNode("t")->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  tensorflow::VersionDef versions;
  versions.set_producer(27);
  g.set_versions(versions);

  tensorflow::GraphDef out;
  g.ToGraphDef(&out);
  BOOST_REQUIRE_EQUAL(out.node_size(), 5);
  BOOST_TEST(out.versions().producer() == 27);
  const tensorflow::NodeDef& s = out.node(3);
  BOOST_TEST(s.name() == "s");
  BOOST_REQUIRE_EQUAL(s.input_size(), 3);
  BOOST_TEST(s.input(0) == "v");
  BOOST_TEST(s.input(1) == "a");
  BOOST_TEST(s.input(2) == "^n");
  const tensorflow::NodeDef& t = out.node(4);
  BOOST_REQUIRE_EQUAL(t.input_size(), 3);
  BOOST_TEST(t.input(0) == "s:1");
  BOOST_TEST(t.input(1) == "^n");
  BOOST_TEST(t.input(2) == "^a");
  BOOST_TEST(t.device() == "/job:localhost/replica:0/task:0/device:CPU:0");
  BOOST_TEST(s.device().empty());
}

}  // namespace
}  // namespace af
