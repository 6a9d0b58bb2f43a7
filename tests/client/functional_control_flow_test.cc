// TensorFlow 2's functional control flow (If/StatelessIf, Case/StatelessCase,
// While/StatelessWhile) as graphs exported from tf.function hold it: branches and
// loop bodies are functions; an If nests inside a While's body; an If
// without results keeps its side effects. Optimizer on and off.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>

#include "client/session.h"

namespace af {
namespace {

std::string TypeAttr(const std::string& dtype) {
  return "attr { key: 'T' value { type: " + dtype + " } } ";
}
const std::string kF = TypeAttr("DT_FLOAT");
const std::string kI = TypeAttr("DT_INT32");

std::string Arg(const std::string& name, const std::string& dtype) {
  return "input_arg { name: '" + name + "' type: " + dtype + " } ";
}
std::string Res(const std::string& name, const std::string& dtype) {
  return "output_arg { name: '" + name + "' type: " + dtype + " } ";
}
std::string Fn(const std::string& name, const std::string& args, const std::string& results,
               const std::string& body, const std::string& rets) {
  return "function { signature { name: '" + name + "' " + args + results + "} " + body + rets +
         "} ";
}
std::string Ret(const std::string& name, const std::string& value) {
  return "ret { key: '" + name + "' value: '" + value + "' } ";
}
std::string ConstDef(const std::string& name, const std::string& dtype, const std::string& val) {
  return "node_def { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: " + dtype +
         " } } attr { key: 'value' value { tensor { dtype: " + dtype + " tensor_shape {} " + val +
         " } } } } ";
}
std::string Binary(const std::string& name, const std::string& op, const std::string& a,
                   const std::string& b, const std::string& attr) {
  return "node_def { name: '" + name + "' op: '" + op + "' input: '" + a + "' input: '" + b + "' " +
         attr + "} ";
}
std::string Func(const std::string& key, const std::string& name) {
  return "attr { key: '" + key + "' value { func { name: '" + name + "' } } } ";
}

const std::string kLibrary =
    "library { " +
    Fn("plus_one", Arg("x", "DT_FLOAT"), Res("y", "DT_FLOAT"),
       ConstDef("one", "DT_FLOAT", "float_val: 1") +
           Binary("add", "AddV2", "x", "one:output:0", kF),
       Ret("y", "add:z:0")) +
    Fn("times_three", Arg("x", "DT_FLOAT"), Res("y", "DT_FLOAT"),
       ConstDef("three", "DT_FLOAT", "float_val: 3") +
           Binary("mul", "Mul", "x", "three:output:0", kF),
       Ret("y", "mul:z:0")) +
    // cond(i, acc, n) = i < n
    Fn("below_n", Arg("i", "DT_INT32") + Arg("acc", "DT_FLOAT") + Arg("n", "DT_INT32"),
       Res("b", "DT_BOOL"), Binary("less", "Less", "i", "n", kI), Ret("b", "less:z:0")) +
    // body(i, acc, n) = (i + 1, acc * 2, n)
    Fn("doubling", Arg("i", "DT_INT32") + Arg("acc", "DT_FLOAT") + Arg("n", "DT_INT32"),
       Res("i2", "DT_INT32") + Res("acc2", "DT_FLOAT") + Res("n2", "DT_INT32"),
       ConstDef("one", "DT_INT32", "int_val: 1") + ConstDef("two", "DT_FLOAT", "float_val: 2") +
           Binary("inc", "AddV2", "i", "one:output:0", kI) +
           Binary("dbl", "Mul", "acc", "two:output:0", kF),
       Ret("i2", "inc:z:0") + Ret("acc2", "dbl:z:0") + Ret("n2", "n")) +
    // body(i, acc, n) = (i + 1, i < 2 ? acc + 1 : acc * 3, n): an If in a loop.
    Fn("branching", Arg("i", "DT_INT32") + Arg("acc", "DT_FLOAT") + Arg("n", "DT_INT32"),
       Res("i2", "DT_INT32") + Res("acc2", "DT_FLOAT") + Res("n2", "DT_INT32"),
       ConstDef("one", "DT_INT32", "int_val: 1") + ConstDef("two", "DT_INT32", "int_val: 2") +
           Binary("inc", "AddV2", "i", "one:output:0", kI) +
           Binary("small", "Less", "i", "two:output:0", kI) +
           "node_def { name: 'pick' op: 'StatelessIf' input: 'small:z:0' input: 'acc' "
           "attr { key: 'Tcond' value { type: DT_BOOL } } "
           "attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
           "attr { key: 'Tout' value { list { type: DT_FLOAT } } } " +
           Func("then_branch", "plus_one") + Func("else_branch", "times_three") + "} ",
       Ret("i2", "inc:z:0") + Ret("acc2", "pick:output:0") + Ret("n2", "n")) +
    // Enqueues x: a branch with a side effect and no result.
    Fn("push", Arg("q", "DT_RESOURCE") + Arg("x", "DT_FLOAT"), "",
       "node_def { name: 'enq' op: 'QueueEnqueueV2' input: 'q' input: 'x' "
       "attr { key: 'Tcomponents' value { list { type: DT_FLOAT } } } } ",
       "") +
    Fn("skip", Arg("q", "DT_RESOURCE") + Arg("x", "DT_FLOAT"), "", "", "") + "} ";

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return "node { name: '" + name +
         "' op: 'Placeholder' attr { key: 'dtype' value { type: " + dtype + " } } } ";
}

std::string WhileNode(const std::string& name, const std::string& op, const std::string& body) {
  return "node { name: '" + name + "' op: '" + op +
         "' input: 'i0' input: 'acc0' input: 'n' "
         "attr { key: 'T' value { list { type: DT_INT32 type: DT_FLOAT type: DT_INT32 } } } " +
         Func("cond", "below_n") + Func("body", body) + "} ";
}

struct FlowSession {
  FlowSession(const std::string& nodes, bool optimize) {
    SessionOptions options;
    if (!optimize) options.optimizer.opt_level = OptimizerOptions::L0;
    BOOST_TEST_REQUIRE(Session::Create(options, &session).ok());
    tensorflow::GraphDef def;
    BOOST_TEST_REQUIRE(google::protobuf::TextFormat::ParseFromString(nodes + kLibrary, &def));
    Status s = session->Extend(def);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  }
  std::unique_ptr<Session> session;
};

template <typename T>
Tensor Scalar(DataType dtype, T v) {
  Tensor t(dtype, TensorShape{});
  t.scalar<T>() = v;
  return t;
}

BOOST_AUTO_TEST_SUITE(functional_control_flow)

BOOST_AUTO_TEST_CASE(stateless_if_runs_the_branch_its_condition_picks) {
  const std::string nodes = Placeholder("p", "DT_BOOL") + Placeholder("x", "DT_FLOAT") +
                            "node { name: 'if' op: 'StatelessIf' input: 'p' input: 'x' "
                            "attr { key: 'Tcond' value { type: DT_BOOL } } "
                            "attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
                            "attr { key: 'Tout' value { list { type: DT_FLOAT } } } " +
                            Func("then_branch", "plus_one") + Func("else_branch", "times_three") +
                            "} ";
  for (bool optimize : {true, false}) {
    FlowSession f(nodes, optimize);
    for (bool p : {true, false}) {
      std::vector<Tensor> out;
      Status s = f.session->Run({{"p", Scalar(DT_BOOL, p)}, {"x", Scalar(DT_FLOAT, 4.0f)}},
                                {"if:0"}, {}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
      BOOST_TEST(out[0].scalar<float>() == (p ? 5.0f : 12.0f));
    }
  }
}

BOOST_AUTO_TEST_CASE(an_if_without_results_runs_only_the_taken_branch_side_effects) {
  const std::string nodes =
      Placeholder("p", "DT_BOOL") + Placeholder("x", "DT_FLOAT") +
      "node { name: 'q' op: 'FIFOQueueV2' attr { key: 'component_types' value { list { type: "
      "DT_FLOAT } } } attr { key: 'capacity' value { i: 10 } } } "
      "node { name: 'maybe_push' op: 'If' input: 'p' input: 'q' input: 'x' "
      "attr { key: 'Tcond' value { type: DT_BOOL } } "
      "attr { key: 'Tin' value { list { type: DT_RESOURCE type: DT_FLOAT } } } "
      "attr { key: 'Tout' value { list { } } } " +
      Func("then_branch", "push") + Func("else_branch", "skip") + "} " +
      "node { name: 'size' op: 'QueueSizeV2' input: 'q' } ";
  for (bool optimize : {true, false}) {
    FlowSession f(nodes, optimize);
    std::vector<Tensor> out;
    for (bool p : {true, false, true}) {
      Status s = f.session->Run({{"p", Scalar(DT_BOOL, p)}, {"x", Scalar(DT_FLOAT, 1.0f)}}, {},
                                {"maybe_push"}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    }
    Status s = f.session->Run({}, {"size"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<int32_t>() == 2);
  }
}

BOOST_AUTO_TEST_CASE(while_loops_iterate_their_body_function) {
  const std::string inputs = Placeholder("i0", "DT_INT32") + Placeholder("acc0", "DT_FLOAT") +
                             Placeholder("n", "DT_INT32");
  for (bool optimize : {true, false}) {
    FlowSession f(inputs + WhileNode("doubled", "StatelessWhile", "doubling") +
                      WhileNode("branched", "While", "branching"),
                  optimize);
    std::vector<Tensor> out;
    Status s = f.session->Run(
        {{"i0", Scalar(DT_INT32, 0)}, {"acc0", Scalar(DT_FLOAT, 1.0f)}, {"n", Scalar(DT_INT32, 4)}},
        {"doubled:0", "doubled:1", "branched:1"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<int32_t>() == 4);
    BOOST_TEST(out[1].scalar<float>() == 16.0f);
    // 1 -> 2 -> 3 -> 9 -> 27
    BOOST_TEST(out[2].scalar<float>() == 27.0f);
    // No iteration at all: the loop variables come straight out.
    s = f.session->Run(
        {{"i0", Scalar(DT_INT32, 9)}, {"acc0", Scalar(DT_FLOAT, 5.0f)}, {"n", Scalar(DT_INT32, 4)}},
        {"doubled:1"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 5.0f);
  }
}

std::string IfOn(const std::string& name, const std::string& cond, const std::string& dtype) {
  return "node { name: '" + name + "' op: 'StatelessIf' input: '" + cond +
         "' input: 'x' attr { key: 'Tcond' value { type: " + dtype +
         " } } attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
         "attr { key: 'Tout' value { list { type: DT_FLOAT } } } " +
         Func("then_branch", "plus_one") + Func("else_branch", "times_three") + "} ";
}

// TensorFlow's reading of other conditions: a scalar number is true when
// nonzero, a scalar string when non-empty, any other tensor when it has
// elements.
BOOST_AUTO_TEST_CASE(non_bool_if_conditions_read_as_tensorflow_reads_them) {
  const std::string nodes = Placeholder("c", "DT_INT32") + Placeholder("f", "DT_FLOAT") +
                            Placeholder("s", "DT_STRING") + Placeholder("v", "DT_FLOAT") +
                            Placeholder("x", "DT_FLOAT") + IfOn("int_if", "c", "DT_INT32") +
                            IfOn("float_if", "f", "DT_FLOAT") + IfOn("string_if", "s", "DT_STRING") +
                            IfOn("vector_if", "v", "DT_FLOAT");
  auto str = [](const std::string& text) {
    Tensor t(DT_STRING, TensorShape{});
    t.scalar<std::string>() = text;
    return t;
  };
  struct Case {
    Tensor c, f, s, v;
    bool expect_int, expect_float, expect_string, expect_vector;
  };
  const Case cases[] = {
      {Scalar(DT_INT32, 7), Scalar(DT_FLOAT, -0.5f), str("yes"), Tensor(DT_FLOAT, TensorShape{2}),
       true, true, true, true},
      {Scalar(DT_INT32, 0), Scalar(DT_FLOAT, -0.0f), str(""), Tensor(DT_FLOAT, TensorShape{0, 3}),
       false, false, false, false},
  };
  for (bool optimize : {true, false}) {
    FlowSession f(nodes, optimize);
    for (const Case& k : cases) {
      std::vector<Tensor> out;
      Status s = f.session->Run(
          {{"c", k.c}, {"f", k.f}, {"s", k.s}, {"v", k.v}, {"x", Scalar(DT_FLOAT, 4.0f)}},
          {"int_if:0", "float_if:0", "string_if:0", "vector_if:0"}, {}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
      BOOST_TEST(out[0].scalar<float>() == (k.expect_int ? 5.0f : 12.0f));
      BOOST_TEST(out[1].scalar<float>() == (k.expect_float ? 5.0f : 12.0f));
      BOOST_TEST(out[2].scalar<float>() == (k.expect_string ? 5.0f : 12.0f));
      BOOST_TEST(out[3].scalar<float>() == (k.expect_vector ? 5.0f : 12.0f));
    }
  }
}

std::string CaseNode(const std::string& name, const std::string& op, const std::string& branches,
                     const std::string& tin, const std::string& inputs, const std::string& tout) {
  return "node { name: '" + name + "' op: '" + op + "' input: 'k' " + inputs +
         "attr { key: 'Tin' value { list { " + tin + "} } } "
         "attr { key: 'Tout' value { list { " + tout + "} } } "
         "attr { key: 'branches' value { list { " + branches + "} } } } ";
}

// tf.switch_case: the branch the index names runs, an index out of range
// runs the last branch, and only the taken branch's side effects happen.
BOOST_AUTO_TEST_CASE(case_runs_the_branch_its_index_names_and_the_last_one_out_of_range) {
  const std::string three = "func { name: 'plus_one' } func { name: 'times_three' } "
                            "func { name: 'plus_one' } ";
  const std::string nodes =
      Placeholder("k", "DT_INT32") + Placeholder("x", "DT_FLOAT") +
      CaseNode("pick", "StatelessCase", three, "type: DT_FLOAT ", "input: 'x' ",
               "type: DT_FLOAT ") +
      "node { name: 'q' op: 'FIFOQueueV2' attr { key: 'component_types' value { list { type: "
      "DT_FLOAT } } } attr { key: 'capacity' value { i: 10 } } } " +
      CaseNode("maybe_push", "Case",
               "func { name: 'skip' } func { name: 'push' } func { name: 'skip' } ",
               "type: DT_RESOURCE type: DT_FLOAT ", "input: 'q' input: 'x' ", "") +
      "node { name: 'size' op: 'QueueSizeV2' input: 'q' } ";
  for (bool optimize : {true, false}) {
    FlowSession f(nodes, optimize);
    const std::pair<int, float> expected[] = {{0, 5.0f}, {1, 12.0f}, {2, 5.0f}, {7, 5.0f},
                                              {-1, 5.0f}};
    for (const auto& [k, want] : expected) {
      std::vector<Tensor> out;
      Status s = f.session->Run({{"k", Scalar(DT_INT32, k)}, {"x", Scalar(DT_FLOAT, 4.0f)}},
                                {"pick:0"}, {}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
      BOOST_TEST(out[0].scalar<float>() == want, "k = " << k);
    }
    // Branch 1 pushes; 0, 2 and the out-of-range index (-> 2) do not.
    std::vector<Tensor> out;
    for (int k : {1, 0, 1, 5, 2}) {
      Status s = f.session->Run({{"k", Scalar(DT_INT32, k)}, {"x", Scalar(DT_FLOAT, 1.0f)}}, {},
                                {"maybe_push"}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    }
    Status s = f.session->Run({}, {"size"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<int32_t>() == 2);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
