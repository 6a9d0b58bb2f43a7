// Attr access, NodeDef validation against OpDefs, signatures, summaries and
// tensor names.
#include <boost/test/unit_test.hpp>

#include "core/node_def_util.h"
#include "core/op_registry.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using test::Contains;
using test::MakeNode;
using test::RegisteredOp;

REGISTER_OP("TestValidate")
    .Input("a: T")
    .Input("bs: N * T")
    .Input("cs: Tlist")
    .Input("r: Ref(int32)")
    .Output("out: T")
    .Output("outs: Tlist")
    .Attr("T: {float, int32}")
    .Attr("N: int >= 1")
    .Attr("Tlist: list(type)")
    .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
    .Attr("k: int = 3");

// A TestValidate node with N=2, Tlist=[bool, int64] and all inputs wired.
NodeDef ValidNode() {
  NodeDef n = MakeNode("v", "TestValidate", {"a", "b0", "b1:1", "c0", "c1", "r", "^ctl"});
  SetAttr(&n, "T", DT_FLOAT);
  SetAttr(&n, "N", 2);
  SetAttr(&n, "Tlist", std::vector<DataType>{DT_BOOL, DT_INT64});
  AddDefaultsToNodeDef(RegisteredOp("TestValidate"), &n);
  return n;
}

Status Validate(const NodeDef& n) { return ValidateNodeDef(n, RegisteredOp("TestValidate")); }

BOOST_AUTO_TEST_SUITE(node_attrs)

BOOST_AUTO_TEST_CASE(set_and_get_every_attr_type) {
  NodeDef n = MakeNode("n", "Whatever");
  SetAttr(&n, "i64", int64_t{1} << 40);
  SetAttr(&n, "i", 7);
  SetAttr(&n, "f", 2.5f);
  SetAttr(&n, "b", true);
  SetAttr(&n, "s", std::string("text"));
  SetAttr(&n, "c", "chars");
  SetAttr(&n, "t", DT_HALF);
  SetAttr(&n, "ps", PartialTensorShape({-1, 3}));
  SetAttr(&n, "fs", PartialTensorShape({2, 3}));
  SetAttr(&n, "tensor", Tensor::FromVector<int32_t>({4, 5, 6}));
  SetAttr(&n, "scalar", Tensor::Scalar<float>(1.25f));
  SetAttr(&n, "li", std::vector<int64_t>{1, -2, 3});
  SetAttr(&n, "ls", std::vector<std::string>{"x", "y"});
  SetAttr(&n, "lt", std::vector<DataType>{DT_INT8, DT_STRING});

  int64_t i64 = 0;
  BOOST_TEST(GetNodeAttr(n, "i64", &i64).ok());
  BOOST_TEST(i64 == int64_t{1} << 40);
  int32_t i32 = 0;
  BOOST_TEST(GetNodeAttr(n, "i", &i32).ok());
  BOOST_TEST(i32 == 7);
  float f = 0;
  BOOST_TEST(GetNodeAttr(n, "f", &f).ok());
  BOOST_TEST(f == 2.5f);
  bool b = false;
  BOOST_TEST(GetNodeAttr(n, "b", &b).ok());
  BOOST_TEST(b);
  std::string s;
  BOOST_TEST(GetNodeAttr(n, "s", &s).ok());
  BOOST_TEST(s == "text");
  BOOST_TEST(GetNodeAttr(n, "c", &s).ok());
  BOOST_TEST(s == "chars");
  DataType t = DT_INVALID;
  BOOST_TEST(GetNodeAttr(n, "t", &t).ok());
  BOOST_TEST(t == DT_HALF);
  PartialTensorShape ps;
  BOOST_TEST(GetNodeAttr(n, "ps", &ps).ok());
  BOOST_TEST(ps == PartialTensorShape({-1, 3}));
  TensorShape fs;
  BOOST_TEST(GetNodeAttr(n, "fs", &fs).ok());
  BOOST_TEST(fs == TensorShape({2, 3}));
  Tensor tensor;
  BOOST_TEST(GetNodeAttr(n, "tensor", &tensor).ok());
  BOOST_TEST(tensor.dtype() == DT_INT32);
  BOOST_TEST(tensor.shape() == TensorShape({3}));
  BOOST_TEST(tensor.data<int32_t>()[2] == 6);
  BOOST_TEST(GetNodeAttr(n, "scalar", &tensor).ok());
  BOOST_TEST(tensor.scalar<float>() == 1.25f);
  const tensorflow::TensorProto* proto = nullptr;
  BOOST_TEST(GetNodeAttr(n, "tensor", &proto).ok());
  BOOST_TEST(proto == &n.attr().at("tensor").tensor());
  std::vector<int64_t> li;
  BOOST_TEST(GetNodeAttr(n, "li", &li).ok());
  BOOST_TEST((li == std::vector<int64_t>{1, -2, 3}));
  std::vector<int32_t> li32;
  BOOST_TEST(GetNodeAttr(n, "li", &li32).ok());
  BOOST_TEST((li32 == std::vector<int32_t>{1, -2, 3}));
  std::vector<std::string> ls;
  BOOST_TEST(GetNodeAttr(n, "ls", &ls).ok());
  BOOST_TEST((ls == std::vector<std::string>{"x", "y"}));
  std::vector<DataType> lt;
  BOOST_TEST(GetNodeAttr(n, "lt", &lt).ok());
  BOOST_TEST((lt == std::vector<DataType>{DT_INT8, DT_STRING}));
  BOOST_TEST(HasNodeAttr(n, "lt"));
  BOOST_TEST(!HasNodeAttr(n, "nope"));
}

BOOST_AUTO_TEST_CASE(list_attrs_of_floats_and_shapes) {
  NodeDef n = MakeNode("n", "Whatever");
  auto* list = (*n.mutable_attr())["fl"].mutable_list();
  list->add_f(0.5f);
  list->add_f(-1);
  auto* shapes = (*n.mutable_attr())["sl"].mutable_list();
  shapes->add_shape()->set_unknown_rank(true);
  shapes->add_shape()->add_dim()->set_size(4);
  (*n.mutable_attr())["empty"].mutable_list();
  std::vector<float> fl;
  BOOST_TEST(GetNodeAttr(n, "fl", &fl).ok());
  BOOST_TEST((fl == std::vector<float>{0.5f, -1}));
  std::vector<PartialTensorShape> sl;
  BOOST_TEST(GetNodeAttr(n, "sl", &sl).ok());
  BOOST_REQUIRE(sl.size() == 2u);
  BOOST_TEST(sl[0].unknown_rank());
  BOOST_TEST(sl[1] == PartialTensorShape({4}));
  // An empty list reads as any list type.
  BOOST_TEST(GetNodeAttr(n, "empty", &fl).ok());
  BOOST_TEST(fl.empty());
  std::vector<DataType> types{DT_FLOAT};
  BOOST_TEST(GetNodeAttr(n, "empty", &types).ok());
  BOOST_TEST(types.empty());
}

BOOST_AUTO_TEST_CASE(set_attr_replaces_a_value_of_another_type) {
  NodeDef n = MakeNode("n", "Whatever");
  SetAttr(&n, "x", std::vector<int64_t>{1, 2});
  SetAttr(&n, "x", DT_FLOAT);
  DataType t;
  BOOST_TEST(GetNodeAttr(n, "x", &t).ok());
  std::vector<int64_t> li;
  BOOST_TEST(GetNodeAttr(n, "x", &li).code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(missing_and_mistyped_attrs_name_node_and_attr) {
  NodeDef n = MakeNode("my_node", "MyOp");
  SetAttr(&n, "x", 1);
  SetAttr(&n, "big", int64_t{1} << 33);
  SetAttr(&n, "partial", PartialTensorShape({-1}));
  SetAttr(&n, "bigs", std::vector<int64_t>{1, int64_t{1} << 40});
  float f;
  Status missing = GetNodeAttr(n, "y", &f);
  BOOST_TEST(missing.code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(missing.message(), "'my_node'"));
  BOOST_TEST(Contains(missing.message(), "'MyOp'"));
  BOOST_TEST(Contains(missing.message(), "'y'"));
  Status mistyped = GetNodeAttr(n, "x", &f);
  BOOST_TEST(mistyped.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(mistyped.message(), "'my_node'"));
  BOOST_TEST(Contains(mistyped.message(), "'x'"));
  BOOST_TEST(Contains(mistyped.message(), "float"));
  std::vector<int64_t> li;
  BOOST_TEST(GetNodeAttr(n, "x", &li).code() == Code::INVALID_ARGUMENT);
  int32_t i32;
  BOOST_TEST(GetNodeAttr(n, "big", &i32).code() == Code::INVALID_ARGUMENT);
  std::vector<int32_t> li32;
  BOOST_TEST(GetNodeAttr(n, "bigs", &li32).code() == Code::INVALID_ARGUMENT);
  TensorShape full;
  Status partial = GetNodeAttr(n, "partial", &full);
  BOOST_TEST(partial.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(partial.message(), "'partial'"));
  // A tensor attr whose proto does not decode.
  auto* bad = (*n.mutable_attr())["bad_tensor"].mutable_tensor();
  bad->set_dtype(tensorflow::DT_FLOAT);
  bad->mutable_tensor_shape()->add_dim()->set_size(2);
  bad->set_tensor_content("abc");
  Tensor t;
  Status decode = GetNodeAttr(n, "bad_tensor", &t);
  BOOST_TEST(decode.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(decode.message(), "'my_node'"));
  BOOST_TEST(Contains(decode.message(), "'bad_tensor'"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(node_validation)

BOOST_AUTO_TEST_CASE(defaults_are_added_without_overwriting) {
  NodeDef n = MakeNode("v", "TestValidate");
  SetAttr(&n, "k", 9);
  AddDefaultsToNodeDef(RegisteredOp("TestValidate"), &n);
  std::string padding;
  BOOST_TEST(GetNodeAttr(n, "padding", &padding).ok());
  BOOST_TEST(padding == "SAME");
  int64_t k = 0;
  BOOST_TEST(GetNodeAttr(n, "k", &k).ok());
  BOOST_TEST(k == 9);
  BOOST_TEST(!HasNodeAttr(n, "T"));  // no default: stays missing
}

BOOST_AUTO_TEST_CASE(valid_node_passes) {
  Status s = Validate(ValidNode());
  BOOST_TEST(s.ok(), s.ToString());
  NodeDef with_internal = ValidNode();
  SetAttr(&with_internal, "_class", std::vector<std::string>{"loc:@a"});
  BOOST_TEST(Validate(with_internal).ok());
}

BOOST_AUTO_TEST_CASE(each_validation_failure_names_node_op_and_reason) {
  struct Case {
    std::string what;
    NodeDef node;
    std::string expect;
  };
  std::vector<Case> cases;
  {
    NodeDef n = ValidNode();
    n.mutable_attr()->erase("T");
    cases.push_back({"missing attr", n, "NodeDef missing attr 'T' from Op<name=TestValidate"});
  }
  {
    NodeDef n = ValidNode();
    SetAttr(&n, "T", 1);
    cases.push_back({"wrong attr type", n, "'T'"});
  }
  {
    NodeDef n = ValidNode();
    SetAttr(&n, "T", DT_DOUBLE);
    cases.push_back({"type not allowed", n, "double"});
  }
  {
    NodeDef n = ValidNode();
    SetAttr(&n, "padding", "FULL");
    cases.push_back({"string not allowed", n, "\"FULL\""});
  }
  {
    NodeDef n = ValidNode();
    SetAttr(&n, "N", 0);
    n.mutable_input()->erase(n.mutable_input()->begin() + 1, n.mutable_input()->begin() + 3);
    cases.push_back({"below minimum", n, "minimum"});
  }
  {
    NodeDef n = ValidNode();
    SetAttr(&n, "unexpected", 1);
    cases.push_back({"unknown attr", n, "'unexpected'"});
  }
  {
    NodeDef n = ValidNode();
    n.mutable_input()->RemoveLast();  // the control input
    n.mutable_input()->RemoveLast();  // r
    cases.push_back({"too few inputs", n, "expected 6 data inputs"});
  }
  {
    NodeDef n = ValidNode();
    n.add_input("extra");
    cases.push_back({"data input after control input", n, "follows a control input"});
  }
  {
    NodeDef n = ValidNode();
    *n.mutable_input(6) = "extra";
    cases.push_back({"too many inputs", n, "but the NodeDef has 7"});
  }
  {
    NodeDef n = ValidNode();
    n.set_op("Identity");
    cases.push_back({"op mismatch", n, "does not match"});
  }
  {
    NodeDef n = ValidNode();
    SetAttr(&n, "T", static_cast<DataType>(MakeRefType(DT_FLOAT)));
    cases.push_back({"ref type in a type attr", n, "'T'"});
  }
  for (const auto& c : cases) {
    Status s = Validate(c.node);
    BOOST_TEST_CONTEXT(c.what) {
      BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
      BOOST_TEST(Contains(s.message(), "node 'v'"), s.message());
      BOOST_TEST(Contains(s.message(), "TestValidate"), s.message());
      BOOST_TEST(Contains(s.message(), c.expect), s.message());
    }
  }
}

BOOST_AUTO_TEST_CASE(tensorflow_nodes_validate_after_defaults) {
  NodeDef mm = MakeNode("mm", "MatMul", {"x", "w/read"});
  SetAttr(&mm, "T", DT_FLOAT);
  const auto& op = RegisteredOp("MatMul");
  BOOST_TEST(ValidateNodeDef(mm, op).code() == Code::INVALID_ARGUMENT);  // defaults missing
  AddDefaultsToNodeDef(op, &mm);
  BOOST_TEST(ValidateNodeDef(mm, op).ok());
  SetAttr(&mm, "T", DT_BOOL);
  BOOST_TEST(ValidateNodeDef(mm, op).code() == Code::INVALID_ARGUMENT);

  NodeDef ph = MakeNode("X", "Placeholder");
  SetAttr(&ph, "dtype", DT_FLOAT);
  AddDefaultsToNodeDef(RegisteredOp("Placeholder"), &ph);
  BOOST_TEST(ValidateNodeDef(ph, RegisteredOp("Placeholder")).ok());
  PartialTensorShape shape({1});
  BOOST_TEST(GetNodeAttr(ph, "shape", &shape).ok());
  BOOST_TEST(shape.unknown_rank());
}

BOOST_AUTO_TEST_CASE(in_out_types_expand_number_list_and_ref_args) {
  DataTypeVector in, out;
  BOOST_TEST(InOutTypesForNode(ValidNode(), RegisteredOp("TestValidate"), &in, &out).ok());
  BOOST_TEST((in == DataTypeVector{DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_BOOL, DT_INT64,
                                   MakeRefType(DT_INT32)}));
  BOOST_TEST((out == DataTypeVector{DT_FLOAT, DT_BOOL, DT_INT64}));

  NodeDef merge = MakeNode("m", "RefMerge");
  SetAttr(&merge, "T", DT_INT64);
  SetAttr(&merge, "N", 2);
  BOOST_TEST(InOutTypesForNode(merge, RegisteredOp("RefMerge"), &in, &out).ok());
  BOOST_TEST((in == DataTypeVector{MakeRefType(DT_INT64), MakeRefType(DT_INT64)}));
  BOOST_TEST((out == DataTypeVector{MakeRefType(DT_INT64), DT_INT32}));

  NodeDef missing = MakeNode("m", "Merge");
  SetAttr(&missing, "T", DT_INT64);
  Status s = InOutTypesForNode(missing, RegisteredOp("Merge"), &in, &out);
  BOOST_TEST(!s.ok());
  BOOST_TEST(Contains(s.message(), "'N'"));

  SetAttr(&missing, "N", int64_t{1} << 40);  // absurd lengths fail before allocating
  s = InOutTypesForNode(missing, RegisteredOp("Merge"), &in, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  SetAttr(&missing, "N", -1);
  BOOST_TEST(InOutTypesForNode(missing, RegisteredOp("Merge"), &in, &out).code() ==
             Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(name_ranges_cover_expanded_args) {
  const NodeDef n = ValidNode();
  const auto& op = RegisteredOp("TestValidate");
  int start = -1, stop = -1;
  BOOST_TEST(NameRangeForArg(n, op, "a", true, &start, &stop).ok());
  BOOST_TEST((start == 0 && stop == 1));
  BOOST_TEST(NameRangeForArg(n, op, "bs", true, &start, &stop).ok());
  BOOST_TEST((start == 1 && stop == 3));
  BOOST_TEST(NameRangeForArg(n, op, "cs", true, &start, &stop).ok());
  BOOST_TEST((start == 3 && stop == 5));
  BOOST_TEST(NameRangeForArg(n, op, "r", true, &start, &stop).ok());
  BOOST_TEST((start == 5 && stop == 6));
  BOOST_TEST(NameRangeForArg(n, op, "outs", false, &start, &stop).ok());
  BOOST_TEST((start == 1 && stop == 3));
  Status s = NameRangeForArg(n, op, "a", false, &start, &stop);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(s.message(), "no output named 'a'"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(node_summaries_and_names)

BOOST_AUTO_TEST_CASE(summarize_node_def_sorts_attrs_and_lists_inputs) {
  NodeDef n = MakeNode("mm", "MatMul", {"a", "b:1", "^c"});
  SetAttr(&n, "transpose_a", false);
  SetAttr(&n, "T", DT_FLOAT);
  SetAttr(&n, "fmt", "NHWC");
  SetAttr(&n, "dims", std::vector<int64_t>{1, 2});
  SetAttr(&n, "rate", 0.5f);
  SetAttr(&n, "shape", PartialTensorShape({-1, 3}));
  n.set_device("/device:CPU:0");
  BOOST_TEST(SummarizeNodeDef(n) ==
             "{{node mm}} = MatMul[T=float, dims=[1, 2], fmt=\"NHWC\", rate=0.5, "
             "shape=[?,3], transpose_a=false, _device=\"/device:CPU:0\"](a, b:1, ^c)");
  tensorflow::AttrValue empty;
  BOOST_TEST(SummarizeAttrValue(empty) == "<Unknown AttrValue type>");
  tensorflow::AttrValue quoted;
  quoted.set_s("a\"b\n");
  BOOST_TEST(SummarizeAttrValue(quoted) == "\"a\\\"b\\n\"");
}

BOOST_AUTO_TEST_CASE(parse_tensor_name_accepts_ports_and_control_inputs) {
  TensorId id;
  BOOST_TEST(ParseTensorName("node", &id).ok());
  BOOST_TEST((id.node == "node" && id.index == 0 && !id.is_control()));
  BOOST_TEST(ParseTensorName("scope/node:3", &id).ok());
  BOOST_TEST((id.node == "scope/node" && id.index == 3));
  BOOST_TEST(id.ToString() == "scope/node:3");
  BOOST_TEST(ParseTensorName("^ctl", &id).ok());
  BOOST_TEST((id.node == "ctl" && id.index == -1 && id.is_control()));
  BOOST_TEST(id.ToString() == "^ctl");
  for (const char* bad : {"", "^", ":1", "node:", "node:x", "node:-1", "node:+1", "^node:1",
                          "a:b:1", "node:99999999999", "no^de"}) {
    Status s = ParseTensorName(bad, &id);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, "'" << bad << "'");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
