// OpDefBuilder's spec grammar, its errors, and the OpRegistry.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "core/attr_value_util.h"
#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "registry_test_util.h"

namespace af {
namespace {

using test::Contains;
using test::Finalized;
using tensorflow::OpDef;

const OpDef::AttrDef& Attr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr())
    if (a.name() == name) return a;
  BOOST_FAIL("op " << op.name() << " has no attr " << name);
  return op.attr(0);
}

DataTypeVector AllowedTypes(const OpDef::AttrDef& attr) {
  DataTypeVector out;
  for (int t : attr.allowed_values().list().type()) out.push_back(static_cast<DataType>(t));
  return out;
}

Status FinalizeStatus(const OpDefBuilder& builder) {
  OpRegistrationData data;
  return builder.Finalize(&data);
}

BOOST_AUTO_TEST_SUITE(op_def_builder)

BOOST_AUTO_TEST_CASE(parses_type_attr_inputs_and_outputs) {
  OpDef op = Finalized(OpDefBuilder("TestMatMulLike")
                           .Input("a: T")
                           .Input("b: T")
                           .Output("product: T")
                           .Attr("transpose_a: bool = false")
                           .Attr("T: {float, double}"))
                 .op_def;
  BOOST_TEST(op.name() == "TestMatMulLike");
  BOOST_REQUIRE(op.input_arg_size() == 2);
  BOOST_TEST(op.input_arg(0).name() == "a");
  BOOST_TEST(op.input_arg(0).type_attr() == "T");
  BOOST_TEST(op.output_arg(0).name() == "product");
  const auto& t = Attr(op, "T");
  BOOST_TEST(t.type() == "type");
  BOOST_TEST((AllowedTypes(t) == DataTypeVector{DT_FLOAT, DT_DOUBLE}));
  BOOST_TEST(!t.has_default_value());
  const auto& ta = Attr(op, "transpose_a");
  BOOST_TEST(ta.type() == "bool");
  BOOST_TEST(ta.default_value().value_case() == tensorflow::AttrValue::kB);
  BOOST_TEST(ta.default_value().b() == false);
}

BOOST_AUTO_TEST_CASE(parses_every_arg_kind) {
  OpDef op = Finalized(OpDefBuilder("TestArgKinds")
                           .Attr("T: type")
                           .Attr("N: int >= 1")
                           .Attr("Tlist: list(type)")
                           .Input("fixed: float")
                           .Input("repeated: N * T")
                           .Input("listed: Tlist")
                           .Input("ref: Ref(T)")
                           .Input("refs: Ref(N*int32)")
                           .Output("out: DT_INT64"))
                 .op_def;
  const auto& in = op.input_arg();
  BOOST_TEST(in[0].type() == tensorflow::DT_FLOAT);
  BOOST_TEST(in[0].type_attr().empty());
  BOOST_TEST(in[1].number_attr() == "N");
  BOOST_TEST(in[1].type_attr() == "T");
  BOOST_TEST(in[2].type_list_attr() == "Tlist");
  BOOST_TEST(in[3].is_ref());
  BOOST_TEST(in[3].type_attr() == "T");
  BOOST_TEST(in[4].is_ref());
  BOOST_TEST(in[4].number_attr() == "N");
  BOOST_TEST(in[4].type() == tensorflow::DT_INT32);
  BOOST_TEST(op.output_arg(0).type() == tensorflow::DT_INT64);
  BOOST_TEST(Attr(op, "N").has_minimum());
  BOOST_TEST(Attr(op, "N").minimum() == 1);
}

BOOST_AUTO_TEST_CASE(parses_defaults_of_every_type) {
  OpDef op = Finalized(OpDefBuilder("TestDefaults")
                           .Attr("i: int = -3")
                           .Attr("f: float = 1.5")
                           .Attr("b: bool = true")
                           .Attr("s1: string = 'VALID'")
                           .Attr("s2: string = \"NHWC\"")
                           .Attr("s3: string = 'it\\'s'")
                           .Attr("t1: type = DT_FLOAT")
                           .Attr("t2: type = int32")
                           .Attr("scalar: shape = []")
                           .Attr("partial: shape = [2, -1]")
                           .Attr("unknown: shape = { unknown_rank: true }")
                           .Attr("ints: list(int) = [1, 1]")
                           .Attr("empty: list(int) = []")
                           .Attr("strs: list(string) = ['a', \"b,c\"]")
                           .Attr("types: list(type) = [DT_INT32, float]")
                           .Attr("tensor: tensor = { dtype: DT_INT32 int_val: 7 }"))
                 .op_def;
  BOOST_TEST(Attr(op, "i").default_value().i() == -3);
  BOOST_TEST(Attr(op, "f").default_value().f() == 1.5f);
  BOOST_TEST(Attr(op, "b").default_value().b() == true);
  BOOST_TEST(Attr(op, "s1").default_value().s() == "VALID");
  BOOST_TEST(Attr(op, "s2").default_value().s() == "NHWC");
  BOOST_TEST(Attr(op, "s3").default_value().s() == "it's");
  BOOST_TEST(Attr(op, "t1").default_value().type() == tensorflow::DT_FLOAT);
  BOOST_TEST(Attr(op, "t2").default_value().type() == tensorflow::DT_INT32);
  const auto& scalar = Attr(op, "scalar").default_value();
  BOOST_TEST(scalar.value_case() == tensorflow::AttrValue::kShape);
  BOOST_TEST(scalar.shape().dim_size() == 0);
  BOOST_TEST(!scalar.shape().unknown_rank());
  const auto& partial = Attr(op, "partial").default_value().shape();
  BOOST_REQUIRE(partial.dim_size() == 2);
  BOOST_TEST(partial.dim(0).size() == 2);
  BOOST_TEST(partial.dim(1).size() == -1);
  BOOST_TEST(Attr(op, "unknown").default_value().shape().unknown_rank());
  const auto& ints = Attr(op, "ints").default_value().list().i();
  BOOST_TEST((std::vector<int64_t>(ints.begin(), ints.end()) == std::vector<int64_t>{1, 1}));
  const auto& empty = Attr(op, "empty").default_value();
  BOOST_TEST(empty.value_case() == tensorflow::AttrValue::kList);  // set, though empty
  BOOST_TEST(empty.list().i_size() == 0);
  const auto& strs = Attr(op, "strs").default_value().list().s();
  BOOST_REQUIRE(strs.size() == 2);
  BOOST_TEST(strs[1] == "b,c");
  BOOST_TEST(Attr(op, "types").default_value().list().type(1) == tensorflow::DT_FLOAT);
  BOOST_TEST(Attr(op, "tensor").default_value().tensor().int_val(0) == 7);
  BOOST_TEST(Attr(op, "ints").type() == "list(int)");
}

BOOST_AUTO_TEST_CASE(type_set_shorthands_and_unions) {
  OpDef op = Finalized(OpDefBuilder("TestTypeSets")
                           .Attr("A: numbertype")
                           .Attr("B: realnumbertype")
                           .Attr("C: quantizedtype")
                           .Attr("D: {realnumbertype, qint8}")
                           .Attr("E: {float, float, int32}")
                           .Attr("F: all")
                           .Attr("G: list({int32, int64}) >= 1"))
                 .op_def;
  BOOST_TEST((AllowedTypes(Attr(op, "A")) == NumberTypes()));
  BOOST_TEST((AllowedTypes(Attr(op, "B")) == RealNumberTypes()));
  BOOST_TEST((AllowedTypes(Attr(op, "C")) == QuantizedTypes()));
  DataTypeVector d = AllowedTypes(Attr(op, "D"));
  BOOST_TEST(d.size() == RealNumberTypes().size() + 1);
  BOOST_TEST(std::count(d.begin(), d.end(), DT_QINT8) == 1);
  BOOST_TEST((AllowedTypes(Attr(op, "E")) == DataTypeVector{DT_FLOAT, DT_INT32}));
  BOOST_TEST((AllowedTypes(Attr(op, "F")) == AllTypes()));
  BOOST_TEST(Attr(op, "G").type() == "list(type)");
  BOOST_TEST((AllowedTypes(Attr(op, "G")) == DataTypeVector{DT_INT32, DT_INT64}));
  // TensorFlow's sets: real numbers compare, number types add complex and
  // quantized ones.
  const auto& real = RealNumberTypes();
  BOOST_TEST(std::count(real.begin(), real.end(), DT_COMPLEX64) == 0);
  BOOST_TEST(std::count(real.begin(), real.end(), DT_HALF) == 1);
  const auto& num = NumberTypes();
  BOOST_TEST(std::count(num.begin(), num.end(), DT_COMPLEX128) == 1);
  BOOST_TEST(std::count(num.begin(), num.end(), DT_QINT32) == 1);
  BOOST_TEST(std::count(num.begin(), num.end(), DT_BOOL) == 0);
}

BOOST_AUTO_TEST_CASE(string_allowed_values_and_minimums) {
  OpDef op = Finalized(OpDefBuilder("TestStrings")
                           .Attr("padding: {'SAME', 'VALID'}")
                           .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC'")
                           .Attr("strides: list(int) >= 2 = [1, 1]"))
                 .op_def;
  const auto& padding = Attr(op, "padding");
  BOOST_TEST(padding.type() == "string");
  BOOST_REQUIRE(padding.allowed_values().list().s_size() == 2);
  BOOST_TEST(padding.allowed_values().list().s(1) == "VALID");
  BOOST_TEST(Attr(op, "data_format").default_value().s() == "NHWC");
  BOOST_TEST(Attr(op, "strides").minimum() == 2);
}

BOOST_AUTO_TEST_CASE(flags_doc_and_shape_fn_are_kept) {
  OpRegistrationData data = Finalized(OpDefBuilder("TestFlags")
                                          .SetIsStateful()
                                          .SetIsCommutative()
                                          .SetIsAggregate()
                                          .SetAllowsUninitializedInput()
                                          .Doc("Does test things.")
                                          .SetShapeFn(shape_fn::NoOutputs));
  BOOST_TEST(data.op_def.is_stateful());
  BOOST_TEST(data.op_def.is_commutative());
  BOOST_TEST(data.op_def.is_aggregate());
  BOOST_TEST(data.op_def.allows_uninitialized_input());
  BOOST_TEST(data.op_def.summary() == "Does test things.");
  BOOST_TEST(static_cast<bool>(data.shape_fn));
  OpRegistrationData plain = Finalized(OpDefBuilder("TestPlain"));
  BOOST_TEST(!plain.op_def.is_stateful());
  BOOST_TEST(!static_cast<bool>(plain.shape_fn));
}

BOOST_AUTO_TEST_CASE(bad_specs_name_the_op_and_the_spec) {
  struct Case {
    OpDefBuilder builder;
    std::string spec;  // quoted in the message
  };
  std::vector<Case> cases;
  cases.push_back({OpDefBuilder("TestBad").Attr("T: {flaot}"), "T: {flaot}"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: strin"), "x: strin"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: int = abc"), "x: int = abc"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: float = 1.5x"), "x: float = 1.5x"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: bool = yes"), "x: bool = yes"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: type = DT_NOPE"), "x: type = DT_NOPE"});
  cases.push_back({OpDefBuilder("TestBad").Attr("p: {'SAME', 'VALID'} = 'FULL'"),
                   "p: {'SAME', 'VALID'} = 'FULL'"});
  cases.push_back({OpDefBuilder("TestBad").Attr("T: {float} = DT_INT32"),
                   "T: {float} = DT_INT32"});
  cases.push_back({OpDefBuilder("TestBad").Attr("N: int >= 2 = 1"), "N: int >= 2 = 1"});
  cases.push_back({OpDefBuilder("TestBad").Attr("l: list(int) >= 1 = []"),
                   "l: list(int) >= 1 = []"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: bool >= 1"), "x: bool >= 1"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: list(int) = 3"), "x: list(int) = 3"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: int junk"), "x: int junk"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x int"), "x int"});
  cases.push_back({OpDefBuilder("TestBad").Attr("s: shape = [2, x]"), "s: shape = [2, x]"});
  cases.push_back({OpDefBuilder("TestBad").Attr("s: shape = [-2]"), "s: shape = [-2]"});
  cases.push_back({OpDefBuilder("TestBad").Attr("s: string = 'open"), "s: string = 'open"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: int").Attr("x: float"), "x: float"});
  cases.push_back({OpDefBuilder("TestBad").Input("x: U"), "x: U"});
  cases.push_back({OpDefBuilder("TestBad").Attr("N: float").Attr("T: type").Input("x: N * T"),
                   "x: N * T"});
  cases.push_back({OpDefBuilder("TestBad").Attr("S: string").Input("x: S"), "x: S"});
  cases.push_back({OpDefBuilder("TestBad").Attr("N: int").Attr("L: list(type)").Input(
                       "x: N * L"),
                   "x: N * L"});
  cases.push_back({OpDefBuilder("TestBad").Input("X: float"), "X: float"});
  cases.push_back({OpDefBuilder("TestBad").Input("x float"), "x float"});
  cases.push_back({OpDefBuilder("TestBad").Attr("T: type").Input("x: Ref(T"), "x: Ref(T"});
  cases.push_back({OpDefBuilder("TestBad").Output("y: float extra"), "y: float extra"});
  cases.push_back({OpDefBuilder("TestBad").Input("x: float").Input("x: int32"), "x: int32"});
  cases.push_back({OpDefBuilder("TestBad").Attr("x: int").Input("x: float"), "x: float"});
  for (const auto& c : cases) {
    Status s = FinalizeStatus(c.builder);
    BOOST_TEST_CONTEXT("spec " << c.spec) {
      BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
      BOOST_TEST(Contains(s.message(), "Op 'TestBad'"), s.message());
      BOOST_TEST(Contains(s.message(), "'" + c.spec + "'"), s.message());
    }
  }
  Status lower = FinalizeStatus(OpDefBuilder("testLower"));
  BOOST_TEST(lower.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(lower.message(), "testLower"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(op_registry)

BOOST_AUTO_TEST_CASE(registers_looks_up_and_rejects_duplicates) {
  OpRegistry registry;
  BOOST_TEST(registry.Register(OpDefBuilder("TestOne").Output("y: float")).ok());
  BOOST_TEST(registry.Register(OpDefBuilder("TestTwo")).ok());
  Status dup = registry.Register(OpDefBuilder("TestOne"));
  BOOST_TEST(dup.code() == Code::ALREADY_EXISTS);
  BOOST_TEST(Contains(dup.message(), "TestOne"));
  Status bad = registry.Register(OpDefBuilder("TestThree").Input("x: U"));
  BOOST_TEST(bad.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(registry.LookUp("TestThree") == nullptr);

  const OpRegistrationData* one = registry.LookUp("TestOne");
  BOOST_REQUIRE(one != nullptr);
  BOOST_TEST(one->op_def.output_arg(0).type() == tensorflow::DT_FLOAT);
  const tensorflow::OpDef* def = nullptr;
  BOOST_TEST(registry.LookUpOpDef("TestTwo", &def).ok());
  BOOST_TEST(def->name() == "TestTwo");
  Status missing = registry.LookUpOpDef("NoSuchOp", &def);
  BOOST_TEST(missing.code() == Code::NOT_FOUND);
  BOOST_TEST(missing.message() == "Op type not registered 'NoSuchOp'");
  BOOST_TEST(def == nullptr);
  BOOST_TEST((registry.ListOps() == std::vector<std::string>{"TestOne", "TestTwo"}));
}

REGISTER_OP("TestStaticallyRegistered").Input("x: T").Attr("T: type");

BOOST_AUTO_TEST_CASE(register_op_macro_registers_globally) {
  const OpDef& op = test::RegisteredOp("TestStaticallyRegistered");
  BOOST_TEST(op.input_arg(0).type_attr() == "T");
  auto ops = OpRegistry::Global()->ListOps();
  BOOST_TEST(std::count(ops.begin(), ops.end(), "TestStaticallyRegistered") == 1);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
