#include <boost/test/unit_test.hpp>

#include <google/protobuf/util/message_differencer.h>

#include "core/node_def_util.h"
#include "graph/graph_copy.h"
#include "graph/subgraph.h"
#include "pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers

// a, b -> sum -> out, with an unrelated branch a -> other.
std::string SmallGraph() {
  return Placeholder("a") + Placeholder("b") + NodeT("sum", "Add", {"a", "b"}) +
         NodeT("out", "Identity", {"sum"}) + NodeT("other", "Identity", {"a"});
}

std::unique_ptr<Graph> Prune(const Graph& g, const StepSignature& sig) {
  std::unique_ptr<Graph> out;
  Status s = PruneForExecution(g, sig, &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return out;
}

Node* OnlyNodeOfOp(const Graph& g, const std::string& op, int index) {
  Node* found = nullptr;
  for (Node* n : g.nodes()) {
    int64_t i = -1;
    if (n->type_string() == op && GetNodeAttr(n->def(), "index", &i).ok() && i == index) {
      BOOST_REQUIRE_MESSAGE(found == nullptr, "two " << op << " with index " << index);
      found = n;
    }
  }
  BOOST_REQUIRE_MESSAGE(found != nullptr, "no " << op << " with index " << index);
  return found;
}

int CountOp(const Graph& g, const std::string& op) {
  int count = 0;
  for (Node* n : g.nodes()) count += n->type_string() == op;
  return count;
}

const Node* InputNode(const Node& n, int input) {
  const Edge* e = nullptr;
  BOOST_REQUIRE(n.input_edge(input, &e).ok());
  return e->src();
}

BOOST_AUTO_TEST_SUITE(prune)

BOOST_AUTO_TEST_CASE(feeds_become_args_fetches_become_retvals) {
  Graph g(PassTestRegistry());
  Build(SmallGraph(), &g);
  auto p = Prune(g, {{"a:0", "b"}, {"out:0"}, {}});
  BOOST_TEST(!HasNode(*p, "a"));
  BOOST_TEST(!HasNode(*p, "b"));
  BOOST_TEST(!HasNode(*p, "other"));
  BOOST_TEST(HasNode(*p, "sum"));
  BOOST_TEST(HasNode(*p, "out"));
  BOOST_TEST(p->num_nodes() == 5);  // 2 _Arg, sum, out, _Retval

  Node* arg0 = OnlyNodeOfOp(*p, "_Arg", 0);
  Node* arg1 = OnlyNodeOfOp(*p, "_Arg", 1);
  DataType t = DT_INVALID;
  BOOST_REQUIRE(GetNodeAttr(arg0->def(), "T", &t).ok());
  BOOST_TEST(t == DT_FLOAT);
  const Node* sum = p->FindNode("sum");
  BOOST_TEST(InputNode(*sum, 0) == arg0);
  BOOST_TEST(InputNode(*sum, 1) == arg1);
  Node* ret = OnlyNodeOfOp(*p, "_Retval", 0);
  BOOST_TEST(InputNode(*ret, 0) == p->FindNode("out"));
  BOOST_REQUIRE(GetNodeAttr(ret->def(), "T", &t).ok());
  BOOST_TEST(t == DT_FLOAT);

  // The original graph is untouched.
  BOOST_TEST(g.num_nodes() == 5);
  BOOST_TEST(HasNode(g, "other"));
  BOOST_TEST(CountOp(g, "_Arg") == 0);
}

BOOST_AUTO_TEST_CASE(a_fed_tensor_cuts_off_its_producer) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("x", {2}) + NodeT("y", "Identity", {"x"}) + NodeT("z", "Identity", {"y"}), &g);
  auto p = Prune(g, {{"y:0"}, {"z:0"}, {}});
  BOOST_TEST(!HasNode(*p, "x"));
  BOOST_TEST(!HasNode(*p, "y"));
  BOOST_TEST(InputNode(*p->FindNode("z"), 0) == OnlyNodeOfOp(*p, "_Arg", 0));
  // The _Arg carries the fed tensor's inferred shape for the cost model.
  BOOST_REQUIRE(OnlyNodeOfOp(*p, "_Arg", 0)->output_shapes().size() == 1u);
  BOOST_TEST(OnlyNodeOfOp(*p, "_Arg", 0)->output_shapes()[0] == PartialTensorShape({2}));
}

BOOST_AUTO_TEST_CASE(a_fed_node_stays_when_something_else_needs_it) {
  Graph g(PassTestRegistry());
  // Two outputs of one node: value_index is fed, output 0 is still needed.
  Build(Placeholder("p") +
            NodeT("m", "Merge", {"p"}, "DT_FLOAT", "attr { key: 'N' value { i: 1 } } ") +
            NodeT("use0", "Identity", {"m"}) + NodeT("use1", "Identity", {"m:1"}, "DT_INT32"),
        &g);
  auto p = Prune(g, {{"m:1"}, {"use0", "use1"}, {}});
  BOOST_TEST(HasNode(*p, "m"));
  BOOST_TEST(HasNode(*p, "p"));
  BOOST_TEST(InputNode(*p->FindNode("use1"), 0) == OnlyNodeOfOp(*p, "_Arg", 0));
  BOOST_TEST(InputNode(*p->FindNode("use0"), 0) == p->FindNode("m"));
  DataType t = DT_INVALID;
  BOOST_REQUIRE(GetNodeAttr(OnlyNodeOfOp(*p, "_Arg", 0)->def(), "T", &t).ok());
  BOOST_TEST(t == DT_INT32);
}

BOOST_AUTO_TEST_CASE(targets_and_control_dependencies_are_kept) {
  Graph g(PassTestRegistry());
  Build(SmallGraph() + NodeT("side", "Identity", {"b"}) + NodeText("run_me", "NoOp", {"^side"}) +
            NodeT("guard", "Identity", {"a"}) + NodeT("guarded", "Identity", {"sum", "^guard"}) +
            NodeT("dropped", "Identity", {"b"}),
        &g);
  auto p = Prune(g, {{}, {"guarded:0"}, {"run_me"}});
  for (const char* kept : {"a", "b", "sum", "guard", "guarded", "side", "run_me"}) {
    BOOST_TEST(HasNode(*p, kept), kept);
  }
  for (const char* gone : {"out", "other", "dropped"}) BOOST_TEST(!HasNode(*p, gone), gone);
  // Targets alone, no fetches.
  auto t = Prune(g, {{}, {}, {"run_me"}});
  BOOST_TEST(NodeNames(*t) == (std::vector<std::string>{"b", "side", "run_me"}));
}

BOOST_AUTO_TEST_CASE(feeding_a_placeholder_moves_its_control_edges) {
  Graph g(PassTestRegistry());
  Build(Placeholder("p") + NodeT("v", "Identity", {"p"}) +
            ConstOfShape("c", {1}, "DT_FLOAT", "input: '^p' "),
        &g);
  auto p = Prune(g, {{"p"}, {"v", "c"}, {}});
  BOOST_TEST(!HasNode(*p, "p"));
  const Node* c = p->FindNode("c");
  BOOST_REQUIRE(c->in_edges().size() == 1u);
  BOOST_TEST(c->in_edges()[0]->IsControlEdge());
  BOOST_TEST(c->in_edges()[0]->src() == OnlyNodeOfOp(*p, "_Arg", 0));
}

BOOST_AUTO_TEST_CASE(feeding_and_fetching_the_same_tensor) {
  Graph g(PassTestRegistry());
  Build(SmallGraph(), &g);
  auto p = Prune(g, {{"sum:0"}, {"sum:0", "out:0"}, {}});
  Node* arg = OnlyNodeOfOp(*p, "_Arg", 0);
  BOOST_TEST(InputNode(*OnlyNodeOfOp(*p, "_Retval", 0), 0) == arg);
  BOOST_TEST(InputNode(*OnlyNodeOfOp(*p, "_Retval", 1), 0) == p->FindNode("out"));
  BOOST_TEST(InputNode(*p->FindNode("out"), 0) == arg);
  BOOST_TEST(!HasNode(*p, "sum"));
  BOOST_TEST(!HasNode(*p, "a"));
}

BOOST_AUTO_TEST_CASE(duplicate_fetches_get_one_retval_each) {
  Graph g(PassTestRegistry());
  Build(SmallGraph(), &g);
  auto p = Prune(g, {{}, {"out", "out:0"}, {}});
  BOOST_TEST(CountOp(*p, "_Retval") == 2);
  BOOST_TEST(InputNode(*OnlyNodeOfOp(*p, "_Retval", 1), 0) == p->FindNode("out"));
}

BOOST_AUTO_TEST_CASE(bad_signatures_are_errors_naming_the_culprit) {
  Graph g(PassTestRegistry());
  Build(SmallGraph() +
            NodeText("v", "VariableV2", {},
                     TypeAttr("dtype", "DT_FLOAT") + "attr { key: 'shape' value { shape { } } } ") +
            NodeT("assign", "Assign", {"v", "a"}),
        &g);
  struct Case {
    StepSignature sig;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{{"nope:0"}, {"out"}, {}}, "nope"},
      {{{"a:3"}, {"out"}, {}}, "a:3"},
      {{{"a:x"}, {"out"}, {}}, "a:x"},
      {{{"^a"}, {"out"}, {}}, "^a"},
      {{{"a", "a:0"}, {"out"}, {}}, "fed twice"},
      {{{"v:0"}, {"assign"}, {}}, "assign"},
      {{{}, {"missing"}, {}}, "missing"},
      {{{}, {"out:1"}, {}}, "out:1"},
      {{{}, {"out"}, {"no_such_target"}}, "no_such_target"},
  };
  for (const Case& c : cases) {
    std::unique_ptr<Graph> out;
    Status s = PruneForExecution(g, c.sig, &out);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, c.needle);
    BOOST_TEST(Contains(s.message(), c.needle), s.message());
    BOOST_TEST(!out);
    // In place, a bad signature leaves the graph as it was.
    Graph copy(PassTestRegistry());
    BOOST_REQUIRE(CopyGraph(g, &copy).ok());
    s = RewriteGraphForExecution(&copy, c.sig);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_TEST(NodeNames(copy) == NodeNames(g));
    BOOST_TEST(copy.edges().size() == g.edges().size());
  }
}

BOOST_AUTO_TEST_CASE(while_loops_stay_whole) {
  Graph g(PassTestRegistry());
  Build(
      CounterLoop() + NodeT("result", "Identity", {"exit"}, "DT_INT32") + ScalarInt("unrelated", 5),
      &g);
  const std::vector<std::string> loop = {"init", "limit", "enter",  "limit_enter", "merge",
                                         "less", "cond",  "switch", "body",        "one",
                                         "add",  "next",  "exit"};
  auto p = Prune(g, {{}, {"result"}, {}});
  for (const std::string& name : loop) BOOST_TEST(HasNode(*p, name), name);
  BOOST_TEST(!HasNode(*p, "unrelated"));

  // Fetching a value inside the body keeps the Exit too.
  auto body = Prune(g, {{}, {"add"}, {}});
  for (const std::string& name : loop) BOOST_TEST(HasNode(*body, name), name);
  BOOST_TEST(!HasNode(*body, "result"));

  // Feeding the loop's initial value replaces only `init`.
  auto fed = Prune(g, {{"init"}, {"result"}, {}});
  BOOST_TEST(!HasNode(*fed, "init"));
  BOOST_TEST(HasNode(*fed, "next"));
  BOOST_TEST(InputNode(*fed->FindNode("enter"), 0) == OnlyNodeOfOp(*fed, "_Arg", 0));
}

BOOST_AUTO_TEST_CASE(copy_graph_keeps_nodes_edges_shapes_and_devices) {
  Graph g(PassTestRegistry());
  Build(SmallGraph() + ConstOfShape("c", {3, 4}, "DT_FLOAT", "input: '^out' "), &g);
  g.FindNode("sum")->set_assigned_device_name(kCpu1);
  Graph copy(PassTestRegistry());
  Status s = CopyGraph(g, &copy);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(NodeNames(copy) == NodeNames(g));
  BOOST_TEST(copy.edges().size() == g.edges().size());
  BOOST_TEST(copy.FindNode("sum")->assigned_device_name() == kCpu1);
  BOOST_TEST(copy.FindNode("c")->output_shapes()[0] == PartialTensorShape({3, 4}));
  tensorflow::GraphDef a, b;
  g.ToGraphDef(&a);
  copy.ToGraphDef(&b);
  // Attr maps serialize in hash order, so compare messages, not bytes.
  BOOST_TEST(google::protobuf::util::MessageDifferencer::Equals(a, b));
  // Copying into a graph that has nodes is refused.
  s = CopyGraph(g, &copy);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
