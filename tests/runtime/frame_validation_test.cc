// Malformed loop structure is rejected by frame analysis with an
// INVALID_ARGUMENT that names both ends of the offending edge, their ops
// and their frames. The malformed graphs are small edits of the
// TensorFlow-style exports under tests/data/control_flow.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

#include "control-flow/frame_analysis.h"
#include "graph/graph_def_import.h"

namespace af {
namespace {

tensorflow::GraphDef LoadDef(const std::string& file) {
  tensorflow::GraphDef def;
  Status s = ReadGraphDefFile(std::string(AF_TEST_DATA_DIR) + "/control_flow/" + file, &def);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return def;
}

tensorflow::NodeDef* FindDef(tensorflow::GraphDef* def, const std::string& name) {
  for (tensorflow::NodeDef& n : *def->mutable_node())
    if (n.name() == name) return &n;
  BOOST_FAIL("no node " << name);
  return nullptr;
}

void AddNode(tensorflow::GraphDef* def, const std::string& name, const std::string& op,
             std::initializer_list<std::string> inputs, const std::string& dtype_attr = "T") {
  tensorflow::NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  if (!dtype_attr.empty()) (*n->mutable_attr())[dtype_attr].set_type(tensorflow::DT_FLOAT);
}

void AddFloatConst(tensorflow::GraphDef* def, const std::string& name, float value) {
  AddNode(def, name, "Const", {}, "dtype");
  tensorflow::TensorProto* t = (*FindDef(def, name)->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_FLOAT);
  t->add_float_val(value);
}

// Both the structural analysis (as the executor runs it) and the
// whole-graph validation reject `def`; returns the message.
std::string ExpectRejected(const tensorflow::GraphDef& def) {
  Graph g;
  Status s = ImportGraphDef(def, &g);
  BOOST_TEST_REQUIRE(s.ok(), "the importer should accept it: " << s.ToString());
  FrameAnalysis analysis;
  s = AnalyzeFrames(g, &analysis);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  const Status v = ValidateFrames(g);
  BOOST_TEST(v.code() == Code::INVALID_ARGUMENT, v.ToString());
  BOOST_TEST(v.message() == s.message());
  return std::string(v.message());
}

void ExpectMentions(const std::string& message, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts)
    BOOST_TEST(message.find(part) != std::string::npos,
               "expected \"" << part << "\" in: " << message);
}

// Copies every node of `def` under a new loop prefix, for two sibling loops.
void AddRenamedCopy(tensorflow::GraphDef* def, const std::string& from, const std::string& to) {
  auto rename = [&](std::string s) {
    const size_t at = s.find(from);
    if (at != std::string::npos && (at == 0 || s[at - 1] == '^' || s[at - 1] == '@'))
      s.replace(at, from.size(), to);
    return s;
  };
  const int count = def->node_size();
  for (int i = 0; i < count; ++i) {
    const tensorflow::NodeDef& src = def->node(i);
    if (src.name().rfind(from, 0) != 0) continue;
    tensorflow::NodeDef copy = src;
    copy.set_name(rename(copy.name()));
    for (std::string& in : *copy.mutable_input()) in = rename(in);
    for (auto& [key, value] : *copy.mutable_attr()) {
      if (key == "frame_name") value.set_s(rename(value.s()));
      if (key == "_class")
        for (std::string& c : *value.mutable_list()->mutable_s()) c = rename(c);
    }
    *def->add_node() = copy;
  }
}

BOOST_AUTO_TEST_CASE(exported_control_flow_graphs_validate) {
  for (const char* file : {"while_loop.pbtxt", "while_loop_maximum_iterations.pbtxt", "cond.pbtxt",
                           "while_loop_with_cond.pbtxt", "nested_while_loops.pbtxt"}) {
    Graph g;
    Status s = ImportGraphDef(LoadDef(file), &g);
    BOOST_TEST_REQUIRE(s.ok(), file << ": " << s.ToString());
    s = ValidateFrames(g);
    BOOST_TEST(s.ok(), file << ": " << s.ToString());
  }
}

BOOST_AUTO_TEST_CASE(frames_of_nested_loops_and_a_cond_inside_a_loop) {
  Graph g;
  BOOST_TEST_REQUIRE(ImportGraphDef(LoadDef("nested_while_loops.pbtxt"), &g).ok());
  FrameAnalysis a;
  Status s = AnalyzeFrames(g, &a);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(a.frames.size() == 3u);
  auto frame_of = [&](const Graph& graph, const FrameAnalysis& fa, const std::string& node) {
    return fa.frames[fa.frame_of_node[graph.FindNode(node)->id()]].name;
  };
  BOOST_TEST(frame_of(g, a, "x") == "");
  BOOST_TEST(frame_of(g, a, "while/Enter_1") == "");  // an Enter lives in its parent frame
  BOOST_TEST(frame_of(g, a, "while/Const") == "while/while_context");
  BOOST_TEST(frame_of(g, a, "while/while/Enter_1") == "while/while_context");
  BOOST_TEST(frame_of(g, a, "while/while/add_1") == "while/while/while_context");
  BOOST_TEST(frame_of(g, a, "while/while/Exit_1") == "while/while/while_context");
  BOOST_TEST(frame_of(g, a, "while/mul") == "while/while_context");
  BOOST_TEST(frame_of(g, a, "while/Exit_1") == "while/while_context");
  const int inner = a.frame_of_node[g.FindNode("while/while/add_1")->id()];
  BOOST_TEST(a.frames[a.frames[inner].parent].name == "while/while_context");
  BOOST_TEST(a.frames[inner].num_enters == 2);

  Graph c;
  BOOST_TEST_REQUIRE(ImportGraphDef(LoadDef("while_loop_with_cond.pbtxt"), &c).ok());
  FrameAnalysis ca;
  BOOST_TEST_REQUIRE(AnalyzeFrames(c, &ca).ok());
  BOOST_TEST(ca.frames.size() == 2u);  // a cond opens no frame
  for (const char* n : {"while/cond/Switch", "while/cond/mul/y", "while/cond/Merge"})
    BOOST_TEST(frame_of(c, ca, n) == "while/while_context", n);
}

BOOST_AUTO_TEST_CASE(control_edge_from_outside_into_a_loop) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddFloatConst(&def, "c", 1.0f);
  FindDef(&def, "while/add")->add_input("^c");
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'while/add' (op 'Add') in frame 'while/while_context' has a control "
                     "input from node 'c' (op 'Const') in the root frame",
                     "enter the loop through an Enter node"});
}

BOOST_AUTO_TEST_CASE(data_edge_out_of_a_loop_not_through_an_exit) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddNode(&def, "z", "Mul", {"x", "while/mul"});
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'z' (op 'Mul') in the root frame has a data input from node "
                     "'while/mul' (op 'Mul') in frame 'while/while_context'",
                     "only through an Exit node"});
}

BOOST_AUTO_TEST_CASE(data_edge_into_a_loop_not_through_an_enter) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  *FindDef(&def, "while/mul")->mutable_input(1) = "x";
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'while/mul' (op 'Mul') in frame 'while/while_context' has a data "
                     "input from node 'x' (op 'Placeholder') in the root frame",
                     "only through an Enter node"});
}

BOOST_AUTO_TEST_CASE(control_edge_out_of_a_loop_not_through_an_exit) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddFloatConst(&def, "after", 1.0f);
  FindDef(&def, "after")->add_input("^while/mul");
  AddNode(&def, "use", "Mul", {"x", "after"});
  const std::string m = ExpectRejected(def);
  // 'after' has only the control input, so it lands in the loop; 'use'
  // then mixes the loop's value with x.
  ExpectMentions(m, {"'after' (op 'Const')", "'use' (op 'Mul') in the root frame",
                     "frame 'while/while_context'", "Exit node"});
}

BOOST_AUTO_TEST_CASE(input_from_a_sibling_loop) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddRenamedCopy(&def, "while/", "while_1/");
  *FindDef(&def, "while_1/mul")->mutable_input(0) = "while/Identity_1";
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'while_1/mul' (op 'Mul') in frame 'while_1/while_context' has a data "
                     "input from node 'while/Identity_1' (op 'Identity') in frame "
                     "'while/while_context'",
                     "different while loops"});
}

BOOST_AUTO_TEST_CASE(sibling_copy_alone_is_valid) {
  // The control for the test above: the renamed copy itself is fine.
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddRenamedCopy(&def, "while/", "while_1/");
  Graph g;
  BOOST_TEST_REQUIRE(ImportGraphDef(def, &g).ok());
  Status s = ValidateFrames(g);
  BOOST_TEST(s.ok(), s.ToString());
}

BOOST_AUTO_TEST_CASE(enters_of_one_frame_from_different_parent_frames) {
  tensorflow::GraphDef def = LoadDef("nested_while_loops.pbtxt");
  // The inner loop's counter now enters from the root frame, its value
  // from the outer loop.
  *FindDef(&def, "while/while/Enter")->mutable_input(0) = "Const";
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"'while/while/Enter' (op 'Enter')", "'while/while/Enter_1' (op 'Enter')",
                     "frame 'while/while/while_context'", "the root frame",
                     "frame 'while/while_context'", "same parent frame"});
}

BOOST_AUTO_TEST_CASE(exit_with_no_enter) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddNode(&def, "stray/Exit", "Exit", {"x"});
  AddNode(&def, "stray/use", "Neg", {"stray/Exit"});
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'stray/Exit' (op 'Exit') in the root frame has no while loop to exit",
                     "node 'x' (op 'Placeholder') in the root frame"});
}

BOOST_AUTO_TEST_CASE(next_iteration_fed_from_another_frame) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  *FindDef(&def, "while/NextIteration_1")->mutable_input(0) = "x";
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'while/NextIteration_1' (op 'NextIteration') in frame "
                     "'while/while_context' has a data input from node 'x' (op 'Placeholder') "
                     "in the root frame"});
}

BOOST_AUTO_TEST_CASE(next_iteration_fed_from_an_inner_loop) {
  tensorflow::GraphDef def = LoadDef("nested_while_loops.pbtxt");
  *FindDef(&def, "while/NextIteration_1")->mutable_input(0) = "while/while/add_1";
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'while/NextIteration_1' (op 'NextIteration') in frame "
                     "'while/while_context' has a data input from node 'while/while/add_1' "
                     "(op 'Add') in frame 'while/while/while_context'"});
}

BOOST_AUTO_TEST_CASE(retval_of_a_tensor_inside_a_loop) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  AddNode(&def, "fetch_mul", "_Retval", {"while/mul"});
  (*FindDef(&def, "fetch_mul")->mutable_attr())["index"].set_i(0);
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"node 'fetch_mul' (op '_Retval') in frame 'while/while_context'",
                     "node 'while/mul' (op 'Mul') in frame 'while/while_context'",
                     "cannot be fetched"});
}

BOOST_AUTO_TEST_CASE(loop_without_loop_cond) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  for (const char* sw : {"while/Switch", "while/Switch_1"})
    *FindDef(&def, sw)->mutable_input(1) = "while/Less";
  tensorflow::GraphDef pruned;
  for (const tensorflow::NodeDef& n : def.node())
    if (n.name() != "while/LoopCond") *pruned.add_node() = n;
  Graph g;
  BOOST_TEST_REQUIRE(ImportGraphDef(pruned, &g).ok());
  FrameAnalysis analysis;
  // Partitions legitimately hold loops steered by a received predicate,
  // so only the whole-graph validation insists on a LoopCond.
  BOOST_TEST(AnalyzeFrames(g, &analysis).ok());
  const Status s = ValidateFrames(g);
  BOOST_TEST_REQUIRE(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  ExpectMentions(std::string(s.message()),
                 {"'while/NextIteration' (op 'NextIteration') in frame 'while/while_context'",
                  "no LoopCond"});
}

BOOST_AUTO_TEST_CASE(loop_reachable_only_through_its_back_edge) {
  tensorflow::GraphDef def = LoadDef("while_loop.pbtxt");
  // Without its Enter, the counter's Merge is fed only by its NextIteration.
  FindDef(&def, "while/Merge")->mutable_input()->DeleteSubrange(0, 1);
  (*FindDef(&def, "while/Merge")->mutable_attr())["N"].set_i(1);
  const std::string m = ExpectRejected(def);
  ExpectMentions(m, {"unreachable", "back edge"});
}

}  // namespace
}  // namespace af
