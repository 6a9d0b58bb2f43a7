// ParseSingleExample (keys as attrs, one scalar record, no batch dimension)
// and the shape functions of the Example parsing ops, which must give
// TensorFlow's output shapes for imported graphs.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "tests/kernels/example_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Mentions;

ParseSpec SingleSpec() {
  ParseSpec spec;
  spec.sparse.push_back({"tags", DT_STRING});
  spec.dense.push_back(
      {"x", DT_FLOAT, PartialTensorShape{1}, Tensor::FromVector<float>({0}, TensorShape{1})});
  spec.dense.push_back({"v", DT_INT64, PartialTensorShape{-1}, Tensor::Scalar<int64_t>(0)});
  return spec;
}

// Output shapes of `op` for a node with `attrs` and these input shapes.
std::vector<PartialTensorShape> InferOutputShapes(
    const std::string& op, const std::function<void(tensorflow::NodeDef*)>& attrs,
    const std::vector<PartialTensorShape>& inputs) {
  tensorflow::NodeDef node;
  node.set_name("n");
  node.set_op(op);
  attrs(&node);
  const OpRegistrationData* data = OpRegistry::Global()->LookUp(op);
  BOOST_REQUIRE(data != nullptr);
  AddDefaultsToNodeDef(data->op_def, &node);
  std::vector<PartialTensorShape> out;
  AF_REQUIRE_OK(InferShapes(node, data->op_def, data->shape_fn, inputs,
                            std::vector<const Tensor*>(inputs.size(), nullptr), &out));
  return out;
}

BOOST_AUTO_TEST_SUITE(parse_single_example)

BOOST_AUTO_TEST_CASE(one_record_without_batch_dimension) {
  auto out =
      RunParseSingleExample(SingleSpec(), Tensor::Scalar<std::string>(ExampleBuilder()
                                                                          .Floats("x", {3})
                                                                          .Int64s("v", {4, 5, 6})
                                                                          .Bytes("tags", {"p", "q"})
                                                                          .Serialize()));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_REQUIRE_EQUAL(t.size(), 5u);
  AF_EXPECT_OK(CheckTensor(t[0], DT_INT64, TensorShape{2, 1}, {0, 1}));
  BOOST_CHECK(StringsOf(t[1]) == (std::vector<std::string>{"p", "q"}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_INT64, TensorShape{1}, {2}));
  AF_EXPECT_OK(CheckTensor(t[3], DT_FLOAT, TensorShape{1}, {3}));
  AF_EXPECT_OK(CheckTensor(t[4], DT_INT64, TensorShape{3}, {4, 5, 6}));

  out = RunParseSingleExample(SingleSpec(), Tensor::Scalar<std::string>(""));
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_INT64, TensorShape{0, 1}, {}));
  AF_EXPECT_OK(CheckTensor(out.value()[2], DT_INT64, TensorShape{1}, {0}));
  AF_EXPECT_OK(CheckTensor(out.value()[3], DT_FLOAT, TensorShape{1}, {0}));
  AF_EXPECT_OK(CheckTensor(out.value()[4], DT_INT64, TensorShape{0}, {}));
}

BOOST_AUTO_TEST_CASE(malformed_and_mismatched_records) {
  Status s = RunParseSingleExample(SingleSpec(), StringVector({""})).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "scalar"), s.ToString());

  s = RunParseSingleExample(
          SingleSpec(), Tensor::Scalar<std::string>(ExampleBuilder().Int64s("x", {1}).Serialize()))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'x'") && Mentions(s, "ParseSingleExample"), s.ToString());

  s = RunParseSingleExample(SingleSpec(), Tensor::Scalar<std::string>("\x12")).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
}

BOOST_AUTO_TEST_CASE(shape_functions_give_tensorflow_shapes) {
  auto v1 = InferOutputShapes(
      "ParseExample",
      [](tensorflow::NodeDef* n) {
        SetAttr(n, "Nsparse", int64_t{1});
        SetAttr(n, "Ndense", int64_t{2});
        SetAttr(n, "sparse_types", std::vector<DataType>{DT_STRING});
        SetAttr(n, "Tdense", std::vector<DataType>{DT_FLOAT, DT_INT64});
        SetAttr(n, "dense_shapes", ShapeList{{PartialTensorShape{1}, PartialTensorShape{-1, 3}}});
      },
      {PartialTensorShape{5}, PartialTensorShape{0}, PartialTensorShape{}, PartialTensorShape{},
       PartialTensorShape{}, PartialTensorShape{1}, PartialTensorShape{}});
  BOOST_REQUIRE_EQUAL(v1.size(), 5u);
  BOOST_CHECK_EQUAL(v1[0], (PartialTensorShape{-1, 2}));
  BOOST_CHECK_EQUAL(v1[1], (PartialTensorShape{-1}));
  BOOST_CHECK_EQUAL(v1[2], (PartialTensorShape{2}));
  BOOST_CHECK_EQUAL(v1[3], (PartialTensorShape{5, 1}));
  BOOST_CHECK_EQUAL(v1[4], (PartialTensorShape{5, -1, 3}));

  auto v2 =
      InferOutputShapes("ParseExampleV2",
                        [](tensorflow::NodeDef* n) {
                          SetAttr(n, "num_sparse", int64_t{0});
                          SetAttr(n, "sparse_types", std::vector<DataType>{});
                          SetAttr(n, "Tdense", std::vector<DataType>{DT_FLOAT});
                          SetAttr(n, "dense_shapes", ShapeList{{PartialTensorShape{1}}});
                          SetAttr(n, "ragged_value_types", std::vector<DataType>{DT_INT64});
                          SetAttr(n, "ragged_split_types", std::vector<DataType>{DT_INT32});
                        },
                        {PartialTensorShape{4}, PartialTensorShape{0}, PartialTensorShape{0},
                         PartialTensorShape{1}, PartialTensorShape{1}, PartialTensorShape{1}});
  BOOST_REQUIRE_EQUAL(v2.size(), 3u);
  BOOST_CHECK_EQUAL(v2[0], (PartialTensorShape{4, 1}));
  BOOST_CHECK_EQUAL(v2[1], (PartialTensorShape{-1}));
  BOOST_CHECK_EQUAL(v2[2], (PartialTensorShape{5}));

  auto single =
      InferOutputShapes("ParseSingleExample",
                        [](tensorflow::NodeDef* n) {
                          SetAttr(n, "num_sparse", int64_t{1});
                          SetAttr(n, "sparse_keys", std::vector<std::string>{"s"});
                          SetAttr(n, "dense_keys", std::vector<std::string>{"d"});
                          SetAttr(n, "sparse_types", std::vector<DataType>{DT_INT64});
                          SetAttr(n, "Tdense", std::vector<DataType>{DT_FLOAT});
                          SetAttr(n, "dense_shapes", ShapeList{{PartialTensorShape{2, 2}}});
                        },
                        {ScalarShape(), PartialTensorShape{2, 2}});
  BOOST_REQUIRE_EQUAL(single.size(), 4u);
  BOOST_CHECK_EQUAL(single[0], (PartialTensorShape{-1, 1}));
  BOOST_CHECK_EQUAL(single[2], (PartialTensorShape{1}));
  BOOST_CHECK_EQUAL(single[3], (PartialTensorShape{2, 2}));

  auto csv =
      InferOutputShapes("DecodeCSV",
                        [](tensorflow::NodeDef* n) {
                          SetAttr(n, "OUT_TYPE", std::vector<DataType>{DT_INT32, DT_STRING});
                        },
                        {PartialTensorShape{3, -1}, PartialTensorShape{1}, PartialTensorShape{}});
  BOOST_REQUIRE_EQUAL(csv.size(), 2u);
  BOOST_CHECK_EQUAL(csv[0], (PartialTensorShape{3, -1}));
  BOOST_CHECK_EQUAL(csv[1], (PartialTensorShape{3, -1}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
