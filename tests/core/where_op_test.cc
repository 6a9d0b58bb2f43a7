// Where's definition: TensorFlow's signature (T defaults to bool, output
// int64) and its shape function ([unknown, rank of input]).
#include <boost/test/unit_test.hpp>

#include <vector>

#include "core/shape_inference.h"
#include "registry_test_util.h"

namespace af {
namespace {

PartialTensorShape InferWhere(const PartialTensorShape& input, DataType t) {
  tensorflow::NodeDef def = test::MakeNode("n", "Where", {"in"});
  SetAttr(&def, "T", t);
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp("Where");
  BOOST_REQUIRE(reg);
  std::vector<PartialTensorShape> out;
  Status s = InferShapes(def, reg->op_def, reg->shape_fn, {input}, {nullptr}, &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return out.at(0);
}

BOOST_AUTO_TEST_SUITE(where_op)

BOOST_AUTO_TEST_CASE(where_has_tensorflows_signature) {
  const tensorflow::OpDef& op = test::RegisteredOp("Where");
  BOOST_TEST(op.input_arg_size() == 1);
  BOOST_TEST(op.input_arg(0).name() == "input");
  BOOST_TEST(op.output_arg_size() == 1);
  BOOST_TEST(op.output_arg(0).name() == "index");
  BOOST_TEST(op.output_arg(0).type() == tensorflow::DT_INT64);
  BOOST_TEST_REQUIRE(op.attr_size() == 1);
  BOOST_TEST(op.attr(0).name() == "T");
  BOOST_TEST(op.attr(0).default_value().type() == tensorflow::DT_BOOL);
}

BOOST_AUTO_TEST_CASE(where_rows_are_unknown_and_columns_the_input_rank) {
  BOOST_TEST(InferWhere(PartialTensorShape({3, 4}), DT_BOOL) == PartialTensorShape({-1, 2}));
  BOOST_TEST(InferWhere(PartialTensorShape({-1, 5, 2}), DT_FLOAT) ==
             PartialTensorShape({-1, 3}));
  BOOST_TEST(InferWhere(PartialTensorShape({}), DT_INT32) == PartialTensorShape({-1, 0}));
  BOOST_TEST(InferWhere(PartialTensorShape::Unknown(), DT_BOOL) == PartialTensorShape({-1, -1}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
