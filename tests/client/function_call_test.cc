// FunctionDefs run through PartitionedCall, StatefulPartitionedCall and
// direct calls, as TensorFlow 2 graphs hold them: nested calls, attr
// placeholders, a loop inside a function called twice, calls inside a cond
// and a loop, side effects, and the errors a bad call gets. Every graph runs
// with the optimizer on and off.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>

#include "client/session.h"

namespace af {
namespace {

const std::string kFloat = "attr { key: 'T' value { type: DT_FLOAT } } ";
const std::string kInt = "attr { key: 'T' value { type: DT_INT32 } } ";

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return "node { name: '" + name +
         "' op: 'Placeholder' attr { key: 'dtype' value { type: " + dtype + " } } } ";
}

std::string Call(const std::string& name, const std::string& op, const std::string& function,
                 const std::vector<std::string>& inputs, const std::string& tin,
                 const std::string& tout, const std::string& function_attrs = "") {
  std::string text = "node { name: '" + name + "' op: '" + op + "' ";
  for (const std::string& in : inputs) text += "input: '" + in + "' ";
  text += "attr { key: 'Tin' value { list { " + tin + " } } } ";
  text += "attr { key: 'Tout' value { list { " + tout + " } } } ";
  text += "attr { key: 'f' value { func { name: '" + function + "' " + function_attrs + " } } } } ";
  return text;
}

// z = x*y + x
const std::string kScaleAdd =
    "function { signature { name: 'scale_add' input_arg { name: 'x' type: DT_FLOAT } "
    "input_arg { name: 'y' type: DT_FLOAT } output_arg { name: 'z' type: DT_FLOAT } } "
    "node_def { name: 'mul' op: 'Mul' input: 'x' input: 'y' " +
    kFloat +
    "} "
    "node_def { name: 'add' op: 'AddV2' input: 'mul:z:0' input: 'x' " +
    kFloat +
    "} "
    "ret { key: 'z' value: 'add:z:0' } } ";

// b = a + a for any T: the body's attr is a placeholder.
const std::string kTwice =
    "function { signature { name: 'twice' input_arg { name: 'a' type_attr: 'T' } "
    "output_arg { name: 'b' type_attr: 'T' } attr { name: 'T' type: 'type' } } "
    "node_def { name: 's' op: 'AddV2' input: 'a' input: 'a' "
    "attr { key: 'T' value { placeholder: 'T' } } } "
    "ret { key: 'b' value: 's:z:0' } } ";

// y = twice(scale_add(x, x)): a PartitionedCall and a direct call nested.
const std::string kOuter =
    "function { signature { name: 'outer' input_arg { name: 'x' type: DT_FLOAT } "
    "output_arg { name: 'y' type: DT_FLOAT } } "
    "node_def { name: 'inner' op: 'PartitionedCall' input: 'x' input: 'x' "
    "attr { key: 'Tin' value { list { type: DT_FLOAT type: DT_FLOAT } } } "
    "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
    "attr { key: 'f' value { func { name: 'scale_add' } } } } "
    "node_def { name: 'direct' op: 'twice' input: 'inner:output:0' " +
    kFloat +
    "} "
    "ret { key: 'y' value: 'direct:b:0' } } ";

std::string Enter(const std::string& name, const std::string& input, bool constant) {
  return "node_def { name: '" + name + "' op: 'Enter' input: '" + input + "' " + kInt +
         "attr { key: 'frame_name' value { s: 'loop' } } "
         "attr { key: 'is_constant' value { b: " +
         (constant ? "true" : "false") + " } } } ";
}

// s = 0 + 1 + ... + (n-1), by a while loop inside the function.
const std::string kSumTo =
    "function { signature { name: 'sum_to' input_arg { name: 'n' type: DT_INT32 } "
    "output_arg { name: 's' type: DT_INT32 } } "
    "node_def { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
    "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } } "
    "node_def { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
    "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } } " +
    Enter("enter_i", "zero:output:0", false) + Enter("enter_acc", "zero:output:0", false) +
    Enter("enter_n", "n", true) + Enter("enter_one", "one:output:0", true) +
    "node_def { name: 'merge_i' op: 'Merge' input: 'enter_i:output:0' input: 'next_i:output:0' " +
    kInt +
    "attr { key: 'N' value { i: 2 } } } "
    "node_def { name: 'merge_acc' op: 'Merge' input: 'enter_acc:output:0' "
    "input: 'next_acc:output:0' " +
    kInt +
    "attr { key: 'N' value { i: 2 } } } "
    "node_def { name: 'less' op: 'Less' input: 'merge_i:output:0' input: 'enter_n:output:0' " +
    kInt +
    "} "
    "node_def { name: 'cond' op: 'LoopCond' input: 'less:z:0' } "
    "node_def { name: 'switch_i' op: 'Switch' input: 'merge_i:output:0' input: 'cond:output:0' " +
    kInt +
    "} "
    "node_def { name: 'switch_acc' op: 'Switch' input: 'merge_acc:output:0' "
    "input: 'cond:output:0' " +
    kInt +
    "} "
    "node_def { name: 'i' op: 'Identity' input: 'switch_i:output_true:0' " +
    kInt +
    "} "
    "node_def { name: 'new_acc' op: 'AddV2' input: 'switch_acc:output_true:0' "
    "input: 'i:output:0' " +
    kInt +
    "} "
    "node_def { name: 'new_i' op: 'AddV2' input: 'i:output:0' input: 'enter_one:output:0' " +
    kInt +
    "} "
    "node_def { name: 'next_i' op: 'NextIteration' input: 'new_i:z:0' " +
    kInt +
    "} "
    "node_def { name: 'next_acc' op: 'NextIteration' input: 'new_acc:z:0' " +
    kInt +
    "} "
    "node_def { name: 'exit_acc' op: 'Exit' input: 'switch_acc:output_false:0' " +
    kInt +
    "} "
    "node_def { name: 'exit_i' op: 'Exit' input: 'switch_i:output_false:0' " +
    kInt +
    "} "
    "ret { key: 's' value: 'exit_acc:output:0' } } ";

// Enqueues v; nothing depends on the enqueue but the function's control
// output (TensorFlow 2's automatic control dependencies).
const std::string kPush =
    "function { signature { name: 'push' input_arg { name: 'q' type: DT_RESOURCE } "
    "input_arg { name: 'v' type: DT_FLOAT } control_output: 'enqueue' is_stateful: true } "
    "node_def { name: 'enq' op: 'QueueEnqueueV2' input: 'q' input: 'v' "
    "attr { key: 'Tcomponents' value { list { type: DT_FLOAT } } } } "
    "control_ret { key: 'enqueue' value: 'enq' } } ";

// The same without a control output: a stateful sink still runs.
const std::string kPushQuietly =
    "function { signature { name: 'push_quietly' input_arg { name: 'q' type: DT_RESOURCE } "
    "input_arg { name: 'v' type: DT_FLOAT } is_stateful: true } "
    "node_def { name: 'enq' op: 'QueueEnqueueV2' input: 'q' input: 'v' "
    "attr { key: 'Tcomponents' value { list { type: DT_FLOAT } } } } } ";

const std::string kForever =
    "function { signature { name: 'forever' input_arg { name: 'x' type: DT_FLOAT } "
    "output_arg { name: 'y' type: DT_FLOAT } } "
    "node_def { name: 'again' op: 'PartitionedCall' input: 'x' "
    "attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
    "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
    "attr { key: 'f' value { func { name: 'forever' } } } } "
    "ret { key: 'y' value: 'again:output:0' } } ";

const std::string kLibrary =
    "library { " + kScaleAdd + kTwice + kOuter + kSumTo + kPush + kPushQuietly + kForever + "} ";

tensorflow::GraphDef Parse(const std::string& nodes) {
  tensorflow::GraphDef def;
  const bool parsed = google::protobuf::TextFormat::ParseFromString(nodes + kLibrary, &def);
  BOOST_TEST_REQUIRE(parsed);
  return def;
}

struct FunctionSession {
  FunctionSession(const std::string& nodes, bool optimize) {
    SessionOptions options;
    if (!optimize) options.optimizer.opt_level = OptimizerOptions::L0;
    Status s = Session::Create(options, &session);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    extend = session->Extend(Parse(nodes));
  }
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* out) {
    return session->Run(feeds, fetches, targets, out);
  }
  std::unique_ptr<Session> session;
  Status extend;
};

Tensor Scalar(float v) {
  Tensor t(DT_FLOAT, TensorShape{});
  t.scalar<float>() = v;
  return t;
}

Tensor IntScalar(int32_t v) {
  Tensor t(DT_INT32, TensorShape{});
  t.scalar<int32_t>() = v;
  return t;
}

BOOST_AUTO_TEST_SUITE(function_calls)

BOOST_AUTO_TEST_CASE(a_partitioned_call_computes_its_function) {
  for (bool optimize : {true, false}) {
    FunctionSession f(Placeholder("x", "DT_FLOAT") + Placeholder("y", "DT_FLOAT") +
                          Call("call", "PartitionedCall", "scale_add", {"x", "y"},
                               "type: DT_FLOAT type: DT_FLOAT", "type: DT_FLOAT"),
                      optimize);
    BOOST_TEST_REQUIRE(f.extend.ok(), f.extend.ToString());
    std::vector<Tensor> out;
    Status s = f.Run({{"x", Scalar(3)}, {"y", Scalar(4)}}, {"call:0"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 15.0f);  // 3*4 + 3
  }
}

BOOST_AUTO_TEST_CASE(nested_and_direct_calls_with_attr_placeholders) {
  for (bool optimize : {true, false}) {
    FunctionSession f(Placeholder("x", "DT_FLOAT") +
                          Call("call", "StatefulPartitionedCall", "outer", {"x"}, "type: DT_FLOAT",
                               "type: DT_FLOAT") +
                          Placeholder("n", "DT_INT32") +
                          "node { name: 'twice_int' op: 'twice' input: 'n' " + kInt + "} ",
                      optimize);
    BOOST_TEST_REQUIRE(f.extend.ok(), f.extend.ToString());
    std::vector<Tensor> out;
    Status s = f.Run({{"x", Scalar(2)}, {"n", IntScalar(21)}}, {"call", "twice_int"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 12.0f);  // twice(2*2 + 2)
    BOOST_TEST(out[1].scalar<int32_t>() == 42);
  }
}

BOOST_AUTO_TEST_CASE(a_function_with_a_loop_called_twice_in_one_step) {
  for (bool optimize : {true, false}) {
    FunctionSession f(
        Placeholder("n", "DT_INT32") +
            "node { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
            "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } "
            "} } "
            "node { name: 'n1' op: 'AddV2' input: 'n' input: 'one' " +
            kInt + "} " +
            Call("a", "PartitionedCall", "sum_to", {"n"}, "type: DT_INT32", "type: DT_INT32") +
            Call("b", "PartitionedCall", "sum_to", {"n1"}, "type: DT_INT32", "type: DT_INT32"),
        optimize);
    BOOST_TEST_REQUIRE(f.extend.ok(), f.extend.ToString());
    std::vector<Tensor> out;
    Status s = f.Run({{"n", IntScalar(5)}}, {"a", "b"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<int32_t>() == 10);
    BOOST_TEST(out[1].scalar<int32_t>() == 15);
  }
}

BOOST_AUTO_TEST_CASE(a_call_in_a_cond_branch_runs_only_when_taken) {
  const std::string nodes = Placeholder("x", "DT_FLOAT") + Placeholder("p", "DT_BOOL") +
                            "node { name: 'sw' op: 'Switch' input: 'x' input: 'p' " + kFloat +
                            "} " +
                            Call("taken", "PartitionedCall", "twice", {"sw:1"}, "type: DT_FLOAT",
                                 "type: DT_FLOAT", "attr { key: 'T' value { type: DT_FLOAT } }") +
                            "node { name: 'neg' op: 'Neg' input: 'sw:0' " + kFloat +
                            "} "
                            "node { name: 'merge' op: 'Merge' input: 'taken' input: 'neg' " +
                            kFloat + "attr { key: 'N' value { i: 2 } } } ";
  for (bool optimize : {true, false}) {
    FunctionSession f(nodes, optimize);
    BOOST_TEST_REQUIRE(f.extend.ok(), f.extend.ToString());
    Tensor yes(DT_BOOL, TensorShape{}), no(DT_BOOL, TensorShape{});
    yes.scalar<bool>() = true;
    no.scalar<bool>() = false;
    std::vector<Tensor> out;
    Status s = f.Run({{"x", Scalar(3)}, {"p", yes}}, {"merge"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 6.0f);
    s = f.Run({{"x", Scalar(3)}, {"p", no}}, {"merge"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == -3.0f);
  }
}

BOOST_AUTO_TEST_CASE(running_a_stateful_call_runs_its_side_effects) {
  const std::string nodes =
      Placeholder("v", "DT_FLOAT") +
      "node { name: 'q' op: 'FIFOQueueV2' attr { key: 'component_types' value { list { type: "
      "DT_FLOAT } } } attr { key: 'capacity' value { i: 10 } } } " +
      Call("push", "StatefulPartitionedCall", "push", {"q", "v"},
           "type: DT_RESOURCE type: DT_FLOAT", "") +
      Call("push_quietly", "StatefulPartitionedCall", "push_quietly", {"q", "v"},
           "type: DT_RESOURCE type: DT_FLOAT", "") +
      "node { name: 'size' op: 'QueueSizeV2' input: 'q' } ";
  for (bool optimize : {true, false}) {
    FunctionSession f(nodes, optimize);
    BOOST_TEST_REQUIRE(f.extend.ok(), f.extend.ToString());
    std::vector<Tensor> out;
    for (const char* target : {"push", "push", "push_quietly"}) {
      Status s = f.Run({{"v", Scalar(1)}}, {}, {target}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    }
    Status s = f.Run({}, {"size"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<int32_t>() == 3);
  }
}

Status RunFailing(const std::string& nodes, const std::string& fetch) {
  FunctionSession f(nodes, true);
  if (!f.extend.ok()) return f.extend;
  std::vector<Tensor> out;
  return f.Run({{"x", Scalar(1)}}, {fetch}, {}, &out);
}

BOOST_AUTO_TEST_CASE(a_call_of_a_missing_function_names_the_node_and_the_function) {
  Status s = RunFailing(
      Placeholder("x", "DT_FLOAT") + Call("bad_call", "PartitionedCall", "no_such_function", {"x"},
                                          "type: DT_FLOAT", "type: DT_FLOAT"),
      "bad_call");
  BOOST_TEST(s.code() == Code::NOT_FOUND, s.ToString());
  BOOST_TEST(s.message().find("bad_call") != std::string::npos, s.ToString());
  BOOST_TEST(s.message().find("no_such_function") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(a_call_with_the_wrong_argument_types_is_refused) {
  Status s =
      RunFailing(Placeholder("x", "DT_FLOAT") + Call("bad_call", "PartitionedCall", "scale_add",
                                                     {"x"}, "type: DT_FLOAT", "type: DT_FLOAT"),
                 "bad_call");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("scale_add") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(unbounded_recursion_is_an_error_not_a_hang) {
  Status s =
      RunFailing(Placeholder("x", "DT_FLOAT") + Call("deep", "PartitionedCall", "forever", {"x"},
                                                     "type: DT_FLOAT", "type: DT_FLOAT"),
                 "deep");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("forever") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(a_function_redefined_differently_is_refused_by_extend) {
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(SessionOptions{}, &session).ok());
  BOOST_TEST_REQUIRE(session->Extend(Parse(Placeholder("x", "DT_FLOAT"))).ok());
  // The same library again is fine (clients resend it with every Extend).
  Status same = session->Extend(Parse(Placeholder("x2", "DT_FLOAT")));
  BOOST_TEST(same.ok(), same.ToString());
  tensorflow::GraphDef changed = Parse(Placeholder("x3", "DT_FLOAT"));
  changed.mutable_library()->mutable_function(0)->mutable_node_def(0)->set_op("Sub");
  Status s = session->Extend(changed);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("scale_add") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
