// GraphDefs laid out as TensorFlow 1.x exports tf.while_loop and tf.cond
// (control flow v1; tests/data/control_flow/*.pbtxt, each file's header
// gives the Python that builds it) run through a Session and match values
// computed here in plain C++. A malformed loop fails with a message naming
// both nodes and both frames instead of hanging.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <set>

#include "client/session.h"
#include "graph/graph_def_import.h"

namespace af {
namespace {

tensorflow::GraphDef Load(const std::string& file) {
  tensorflow::GraphDef def;
  Status s = ReadGraphDefFile(std::string(AF_TEST_DATA_DIR) + "/control_flow/" + file, &def);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return def;
}

const tensorflow::NodeDef& NodeNamed(const tensorflow::GraphDef& def, const std::string& name) {
  for (const tensorflow::NodeDef& n : def.node())
    if (n.name() == name) return n;
  BOOST_FAIL("no node " << name);
  return def.node(0);
}

struct Loaded {
  std::unique_ptr<Session> session;
};

Loaded Open(const tensorflow::GraphDef& def, int devices = 1) {
  SessionOptions options;
  options.num_cpu_devices = devices;
  Loaded l;
  Status s = Session::Create(options, &l.session);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = l.session->Extend(def);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return l;
}

std::vector<Tensor> RunOk(Session& session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                          const std::vector<std::string>& fetches) {
  RunOptions options;
  options.timeout_ms = 60000;  // a broken loop shows as a failure, not a hung suite
  std::vector<Tensor> out;
  Status s = session.Run(options, feeds, fetches, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out.size() == fetches.size());
  return out;
}

bool Close(float got, double want) {
  return std::fabs(got - want) <= 1e-5 * std::fabs(want) + 1e-6;
}

BOOST_AUTO_TEST_CASE(while_loop_file_has_tensorflow_names_and_attrs) {
  const tensorflow::GraphDef def = Load("while_loop.pbtxt");
  const std::map<std::string, std::string> ops = {
      {"while/Enter", "Enter"},           {"while/Enter_1", "Enter"},
      {"while/Merge", "Merge"},           {"while/Merge_1", "Merge"},
      {"while/Less/y", "Const"},          {"while/Less", "Less"},
      {"while/LoopCond", "LoopCond"},     {"while/Switch", "Switch"},
      {"while/Switch_1", "Switch"},       {"while/Identity", "Identity"},
      {"while/Identity_1", "Identity"},   {"while/add/y", "Const"},
      {"while/add", "Add"},               {"while/mul/y", "Const"},
      {"while/mul", "Mul"},               {"while/NextIteration", "NextIteration"},
      {"while/NextIteration_1", "NextIteration"}, {"while/Exit", "Exit"},
      {"while/Exit_1", "Exit"}};
  for (const auto& [name, op] : ops) BOOST_TEST(NodeNamed(def, name).op() == op, name);
  for (const char* enter : {"while/Enter", "while/Enter_1"}) {
    const auto& attr = NodeNamed(def, enter).attr();
    BOOST_TEST(attr.at("frame_name").s() == "while/while_context");
    BOOST_TEST(attr.at("is_constant").b() == false);
    BOOST_TEST(attr.at("parallel_iterations").i() == 10);
    BOOST_TEST(attr.count("T") == 1u);
  }
  for (const char* body_const : {"while/add/y", "while/mul/y"}) {
    const auto& n = NodeNamed(def, body_const);
    BOOST_TEST_REQUIRE(n.input_size() == 1);
    BOOST_TEST(n.input(0) == "^while/Identity");
  }
  BOOST_TEST(NodeNamed(def, "while/Less/y").input(0) == "^while/Merge");
  BOOST_TEST(def.versions().producer() == 26);

  const tensorflow::GraphDef m = Load("while_loop_maximum_iterations.pbtxt");
  BOOST_TEST(NodeNamed(m, "while/mul/Enter").attr().at("is_constant").b() == true);
  BOOST_TEST(NodeNamed(m, "while/Less/Enter").attr().at("is_constant").b() == true);
  BOOST_TEST(NodeNamed(m, "while/LogicalAnd").op() == "LogicalAnd");
  BOOST_TEST(NodeNamed(m, "while/LoopCond").input(0) == "while/LogicalAnd");

  const tensorflow::GraphDef c = Load("cond.pbtxt");
  BOOST_TEST(NodeNamed(c, "cond/Switch").input(0) == "p");
  BOOST_TEST(NodeNamed(c, "cond/Switch").input(1) == "p");
  BOOST_TEST(NodeNamed(c, "cond/mul/Switch").input(1) == "cond/pred_id");
  BOOST_TEST(NodeNamed(c, "cond/mul/y").input(0) == "^cond/switch_t");
  BOOST_TEST(NodeNamed(c, "cond/add/y").input(0) == "^cond/switch_f");
}

BOOST_AUTO_TEST_CASE(while_loop_doubles_x_ten_times) {
  for (int devices : {1, 2}) {
    Loaded l = Open(Load("while_loop.pbtxt"), devices);
    for (float x : {1.5f, -3.25f, 0.0f}) {
      double want = x;
      int i = 0;
      while (i < 10) ++i, want *= 2.0;
      auto out = RunOk(*l.session, {{"x:0", Tensor::Scalar<float>(x)}},
                       {"while/Exit:0", "while/Exit_1:0"});
      BOOST_TEST(out[0].scalar<int32_t>() == i);
      BOOST_TEST(Close(out[1].scalar<float>(), want),
                 devices << " devices, x=" << x << ": " << out[1].scalar<float>() << " vs " << want);
    }
  }
}

BOOST_AUTO_TEST_CASE(while_loop_with_maximum_iterations_and_a_captured_tensor) {
  Loaded l = Open(Load("while_loop_maximum_iterations.pbtxt"));
  for (auto [x, y] : {std::pair{1.5f, 3.0f}, std::pair{2.0f, -0.5f}}) {
    int counter = 0, i = 0;
    double z = x;
    while (counter < 5 && i < 10) ++counter, ++i, z *= y;
    auto out = RunOk(*l.session, {{"x:0", Tensor::Scalar<float>(x)}, {"y:0", Tensor::Scalar<float>(y)}},
                     {"while/Exit:0", "while/Exit_1:0", "while/Exit_2:0"});
    BOOST_TEST(out[0].scalar<int32_t>() == counter);
    BOOST_TEST(out[1].scalar<int32_t>() == i);
    BOOST_TEST(Close(out[2].scalar<float>(), z), out[2].scalar<float>() << " vs " << z);
  }
}

BOOST_AUTO_TEST_CASE(cond_takes_either_branch) {
  for (int devices : {1, 2}) {
    Loaded l = Open(Load("cond.pbtxt"), devices);
    for (bool p : {true, false, true}) {
      const float x = 3.5f;
      const double want = p ? x * 2.0 : x + 1.0;
      auto out = RunOk(*l.session, {{"p:0", Tensor::Scalar<bool>(p)}, {"x:0", Tensor::Scalar<float>(x)}},
                       {"cond/Merge:0", "cond/Merge:1"});
      BOOST_TEST(Close(out[0].scalar<float>(), want), "p=" << p << ": " << out[0].scalar<float>());
      BOOST_TEST(out[1].scalar<int32_t>() == (p ? 1 : 0));  // Merge's inputs are (false, true)
    }
  }
}

BOOST_AUTO_TEST_CASE(cond_inside_a_while_loop) {
  Loaded l = Open(Load("while_loop_with_cond.pbtxt"));
  for (float x : {1.5f, -2.0f}) {
    double want = x;
    for (int i = 0; i < 10; ++i) want = i < 5 ? want * 2.0 : want + 1.0;
    auto out = RunOk(*l.session, {{"x:0", Tensor::Scalar<float>(x)}},
                     {"while/Exit:0", "while/Exit_1:0"});
    BOOST_TEST(out[0].scalar<int32_t>() == 10);
    BOOST_TEST(Close(out[1].scalar<float>(), want), out[1].scalar<float>() << " vs " << want);
  }
}

BOOST_AUTO_TEST_CASE(while_loop_inside_a_while_loop) {
  Loaded l = Open(Load("nested_while_loops.pbtxt"));
  for (float x : {1.0f, -7.5f}) {
    double want = x;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 3; ++j) want += 1.0;
      want *= 2.0;
    }
    for (int rep = 0; rep < 2; ++rep) {
      auto out = RunOk(*l.session, {{"x:0", Tensor::Scalar<float>(x)}},
                       {"while/Exit:0", "while/Exit_1:0"});
      BOOST_TEST(out[0].scalar<int32_t>() == 4);
      BOOST_TEST(Close(out[1].scalar<float>(), want), out[1].scalar<float>() << " vs " << want);
    }
  }
}

// A control dependency into the loop from outside: reported when the graph
// is added (or at the latest at the first Run) with both nodes and frames.
BOOST_AUTO_TEST_CASE(malformed_loop_is_an_error_naming_both_nodes_and_frames) {
  tensorflow::GraphDef def = Load("while_loop.pbtxt");
  tensorflow::NodeDef* c = def.add_node();
  *c = NodeNamed(def, "while/mul/y");
  c->set_name("c");
  c->clear_input();
  for (tensorflow::NodeDef& n : *def.mutable_node())
    if (n.name() == "while/add") n.add_input("^c");

  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(SessionOptions{}, &session).ok());
  Status s = session->Extend(def);
  if (s.ok()) {
    RunOptions options;
    options.timeout_ms = 60000;
    std::vector<Tensor> out;
    s = session->Run(options, {{"x:0", Tensor::Scalar<float>(1.0f)}}, {"while/Exit_1:0"}, {},
                     &out);
  }
  BOOST_TEST_REQUIRE(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  const std::string m(s.message());
  for (const char* part : {"node 'while/add' (op 'Add') in frame 'while/while_context'",
                           "control input from node 'c' (op 'Const') in the root frame",
                           "Enter node"})
    BOOST_TEST(m.find(part) != std::string::npos, "expected \"" << part << "\" in: " << m);
}

// A tensor computed inside the loop, fetched directly: its fetch would be
// written once per iteration.
BOOST_AUTO_TEST_CASE(fetching_a_tensor_inside_a_loop_is_an_error_naming_it) {
  tensorflow::GraphDef def = Load("while_loop.pbtxt");
  tensorflow::NodeDef* z = def.add_node();
  *z = NodeNamed(def, "while/Identity_1");
  z->set_name("z");
  z->set_input(0, "while/mul");
  Loaded l = Open(def);
  RunOptions options;
  options.timeout_ms = 60000;
  std::vector<Tensor> out;
  Status s = l.session->Run(options, {{"x:0", Tensor::Scalar<float>(1.0f)}}, {"z:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  const std::string m(s.message());
  for (const char* part : {"node 'z' (op 'Identity') in frame 'while/while_context'",
                           "cannot be fetched", "Exit"})
    BOOST_TEST(m.find(part) != std::string::npos, "expected \"" << part << "\" in: " << m);
  // The loop's own output still runs in the same session.
  s = l.session->Run(options, {{"x:0", Tensor::Scalar<float>(1.0f)}}, {"while/Exit_1:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 1024.0f);
}

}  // namespace
}  // namespace af
