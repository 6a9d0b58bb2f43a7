// The op definitions in core/ops match TensorFlow's signatures, attrs,
// defaults and statefulness, so that TensorFlow GraphDefs validate.
#include <boost/test/unit_test.hpp>

#include "core/attr_value_util.h"
#include "core/op_registry.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::OpDef;
using test::RegisteredOp;

const OpDef::AttrDef* FindAttr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

// "a:T,b:T->product:T" for compact comparison with TensorFlow's signature.
std::string Signature(const OpDef& op) {
  auto arg = [](const OpDef::ArgDef& a) {
    std::string t = a.type_list_attr().empty() ? a.type_attr() : a.type_list_attr();
    if (t.empty()) t = DataTypeString(static_cast<DataType>(a.type()));
    if (!a.number_attr().empty()) t = a.number_attr() + "*" + t;
    if (a.is_ref()) t = "Ref(" + t + ")";
    return a.name() + ":" + t;
  };
  std::string out;
  for (int i = 0; i < op.input_arg_size(); ++i) out += (i ? "," : "") + arg(op.input_arg(i));
  out += "->";
  for (int i = 0; i < op.output_arg_size(); ++i) out += (i ? "," : "") + arg(op.output_arg(i));
  return out;
}

BOOST_AUTO_TEST_CASE(signatures_match_tensorflow) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Const", "->output:dtype"},
      {"Placeholder", "->output:dtype"},
      {"PlaceholderWithDefault", "input:dtype->output:dtype"},
      {"Identity", "input:T->output:T"},
      {"IdentityN", "input:T->output:T"},
      {"NoOp", "->"},
      {"StopGradient", "input:T->output:T"},
      {"PreventGradient", "input:T->output:T"},
      {"Snapshot", "input:T->output:T"},
      {"Add", "x:T,y:T->z:T"},
      {"AddV2", "x:T,y:T->z:T"},
      {"Sub", "x:T,y:T->z:T"},
      {"Mul", "x:T,y:T->z:T"},
      {"RealDiv", "x:T,y:T->z:T"},
      {"Div", "x:T,y:T->z:T"},
      {"Maximum", "x:T,y:T->z:T"},
      {"Minimum", "x:T,y:T->z:T"},
      {"Less", "x:T,y:T->z:bool"},
      {"LessEqual", "x:T,y:T->z:bool"},
      {"Greater", "x:T,y:T->z:bool"},
      {"GreaterEqual", "x:T,y:T->z:bool"},
      {"Equal", "x:T,y:T->z:bool"},
      {"NotEqual", "x:T,y:T->z:bool"},
      {"LogicalAnd", "x:bool,y:bool->z:bool"},
      {"LogicalOr", "x:bool,y:bool->z:bool"},
      {"LogicalNot", "x:bool->y:bool"},
      {"Neg", "x:T->y:T"},
      {"Square", "x:T->y:T"},
      {"AddN", "inputs:N*T->sum:T"},
      {"MatMul", "a:T,b:T->product:T"},
      {"BiasAdd", "value:T,bias:T->output:T"},
      {"Relu", "features:T->activations:T"},
      {"Softmax", "logits:T->softmax:T"},
      {"Switch", "data:T,pred:bool->output_false:T,output_true:T"},
      {"RefSwitch", "data:Ref(T),pred:bool->output_false:Ref(T),output_true:Ref(T)"},
      {"Merge", "inputs:N*T->output:T,value_index:int32"},
      {"RefMerge", "inputs:Ref(N*T)->output:Ref(T),value_index:int32"},
      {"Enter", "data:T->output:T"},
      {"RefEnter", "data:Ref(T)->output:Ref(T)"},
      {"Exit", "data:T->output:T"},
      {"RefExit", "data:Ref(T)->output:Ref(T)"},
      {"NextIteration", "data:T->output:T"},
      {"RefNextIteration", "data:Ref(T)->output:Ref(T)"},
      {"LoopCond", "input:bool->output:bool"},
      {"ControlTrigger", "->"},
      {"_Send", "tensor:T->"},
      {"_Recv", "->tensor:tensor_type"},
      {"_HostSend", "tensor:T->"},
      {"_HostRecv", "->tensor:tensor_type"},
      {"_Arg", "->output:T"},
      {"_Retval", "input:T->"},
  };
  for (const auto& [name, sig] : expected) {
    BOOST_TEST_CONTEXT("op " << name) {
      BOOST_TEST(Signature(RegisteredOp(name)) == sig);
      BOOST_TEST(static_cast<bool>(OpRegistry::Global()->LookUp(name)->shape_fn));
    }
  }
}

BOOST_AUTO_TEST_CASE(statefulness_matches_tensorflow) {
  for (const char* op : {"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval"})
    BOOST_TEST(RegisteredOp(op).is_stateful(), op);
  for (const char* op : {"Placeholder", "Const", "Identity", "Merge", "Switch", "Enter",
                         "Exit", "NextIteration", "LoopCond", "NoOp", "MatMul"})
    BOOST_TEST(!RegisteredOp(op).is_stateful(), op);
  BOOST_TEST(RegisteredOp("RefSwitch").allows_uninitialized_input());
  BOOST_TEST(RegisteredOp("RefMerge").allows_uninitialized_input());
  BOOST_TEST(RegisteredOp("AddN").is_aggregate());
  BOOST_TEST(RegisteredOp("AddN").is_commutative());
  BOOST_TEST(RegisteredOp("AddV2").is_commutative());
  BOOST_TEST(RegisteredOp("Mul").is_commutative());
  BOOST_TEST(!RegisteredOp("Sub").is_commutative());
}

BOOST_AUTO_TEST_CASE(attrs_and_defaults_match_tensorflow) {
  const auto* shape = FindAttr(RegisteredOp("Placeholder"), "shape");
  BOOST_REQUIRE(shape);
  BOOST_TEST(shape->default_value().shape().unknown_rank());
  BOOST_TEST(!FindAttr(RegisteredOp("PlaceholderWithDefault"), "shape")->has_default_value());

  const OpDef& matmul = RegisteredOp("MatMul");
  BOOST_TEST(FindAttr(matmul, "transpose_a")->default_value().b() == false);
  BOOST_TEST(FindAttr(matmul, "transpose_b")->default_value().b() == false);
  const auto& mm_types = FindAttr(matmul, "T")->allowed_values().list().type();
  BOOST_TEST(std::count(mm_types.begin(), mm_types.end(), tensorflow::DT_FLOAT) == 1);
  BOOST_TEST(std::count(mm_types.begin(), mm_types.end(), tensorflow::DT_BOOL) == 0);

  const auto* format = FindAttr(RegisteredOp("BiasAdd"), "data_format");
  BOOST_TEST(format->default_value().s() == "NHWC");
  BOOST_TEST(format->allowed_values().list().s_size() == 2);

  const OpDef& enter = RegisteredOp("Enter");
  BOOST_TEST(FindAttr(enter, "frame_name")->type() == "string");
  BOOST_TEST(!FindAttr(enter, "frame_name")->has_default_value());
  BOOST_TEST(FindAttr(enter, "is_constant")->default_value().b() == false);
  BOOST_TEST(FindAttr(enter, "parallel_iterations")->default_value().i() == 10);

  for (const char* op : {"Equal", "NotEqual"})
    BOOST_TEST(FindAttr(RegisteredOp(op), "incompatible_shape_error")->default_value().b());
  BOOST_TEST(FindAttr(RegisteredOp("AddN"), "N")->minimum() == 1);
  BOOST_TEST(FindAttr(RegisteredOp("Merge"), "N")->minimum() == 1);
  BOOST_TEST(FindAttr(RegisteredOp("_Arg"), "index")->minimum() == 0);
  BOOST_TEST(FindAttr(RegisteredOp("PreventGradient"), "message")->default_value().s() == "");
  BOOST_TEST(FindAttr(RegisteredOp("IdentityN"), "T")->type() == "list(type)");
  BOOST_TEST(FindAttr(RegisteredOp("Const"), "value")->type() == "tensor");
  const auto& less = FindAttr(RegisteredOp("Less"), "T")->allowed_values().list().type();
  BOOST_TEST(static_cast<size_t>(less.size()) == RealNumberTypes().size());

  for (const char* op : {"_Send", "_Recv", "_HostSend", "_HostRecv"}) {
    const OpDef& def = RegisteredOp(op);
    for (const char* attr :
         {"tensor_name", "send_device", "send_device_incarnation", "recv_device"})
      BOOST_TEST((FindAttr(def, attr) && !FindAttr(def, attr)->has_default_value()),
                 op << " " << attr);
    BOOST_TEST(FindAttr(def, "send_device_incarnation")->type() == "int");
    BOOST_TEST(FindAttr(def, "client_terminated")->default_value().b() == false);
  }
  BOOST_TEST(FindAttr(RegisteredOp("_Send"), "T"));
  BOOST_TEST(FindAttr(RegisteredOp("_Recv"), "tensor_type"));
}

}  // namespace
}  // namespace af
