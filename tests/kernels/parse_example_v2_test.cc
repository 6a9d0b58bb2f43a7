// ParseExampleV2: the same cases as ParseExample through the key-vector
// inputs, plus what only V2 does — a scalar `serialized` (outputs without
// the batch dimension) and ragged features with int32 or int64 row_splits.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "tests/kernels/example_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Mentions;

ParseSpec MixedSpec() {
  ParseSpec spec;
  spec.sparse.push_back({"ids", DT_INT64});
  spec.dense.push_back(
      {"x", DT_FLOAT, PartialTensorShape{1}, Tensor::FromVector<float>({0}, TensorShape{1})});
  spec.dense.push_back({"name", DT_STRING, ScalarShape(), EmptyOf(DT_STRING)});
  return spec;
}

BOOST_AUTO_TEST_SUITE(parse_example_v2)

BOOST_AUTO_TEST_CASE(batch_of_dense_and_sparse) {
  const std::vector<std::string> batch = {
      ExampleBuilder().Floats("x", {3}).Bytes("name", {"a"}).Int64s("ids", {4, 5}).Serialize(),
      ExampleBuilder().Bytes("name", {"b"}).Serialize(),
  };
  auto out = RunParseExampleV2(MixedSpec(), StringVector(batch));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_REQUIRE_EQUAL(t.size(), 5u);
  AF_EXPECT_OK(CheckTensor(t[0], DT_INT64, TensorShape{2, 2}, {0, 0, 0, 1}));
  AF_EXPECT_OK(CheckTensor(t[1], DT_INT64, TensorShape{2}, {4, 5}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_INT64, TensorShape{2}, {2, 2}));
  AF_EXPECT_OK(CheckTensor(t[3], DT_FLOAT, TensorShape{2, 1}, {3, 0}));
  BOOST_CHECK(StringsOf(t[4]) == (std::vector<std::string>{"a", "b"}));
}

BOOST_AUTO_TEST_CASE(scalar_serialized_has_no_batch_dimension) {
  ParseSpec spec = MixedSpec();
  spec.ragged.push_back({"r", DT_FLOAT, DT_INT32});
  auto out = RunParseExampleV2(spec,
                               Tensor::Scalar<std::string>(ExampleBuilder()
                                                               .Bytes("name", {"n"})
                                                               .Int64s("ids", {1, 2, 3})
                                                               .Floats("r", {0.5, 1.5})
                                                               .Serialize()),
                               Tensor::Scalar<std::string>("the record"));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_REQUIRE_EQUAL(t.size(), 7u);
  AF_EXPECT_OK(CheckTensor(t[0], DT_INT64, TensorShape{3, 1}, {0, 1, 2}));
  AF_EXPECT_OK(CheckTensor(t[1], DT_INT64, TensorShape{3}, {1, 2, 3}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_INT64, TensorShape{1}, {3}));
  AF_EXPECT_OK(CheckTensor(t[3], DT_FLOAT, TensorShape{1}, {0}));
  BOOST_CHECK(t[4].shape() == TensorShape{});
  BOOST_CHECK(StringsOf(t[4]) == (std::vector<std::string>{"n"}));
  AF_EXPECT_OK(CheckTensor(t[5], DT_FLOAT, TensorShape{2}, {0.5, 1.5}));
  AF_EXPECT_OK(CheckTensor(t[6], DT_INT32, TensorShape{2}, {0, 2}));
}

BOOST_AUTO_TEST_CASE(ragged_features) {
  ParseSpec spec;
  spec.ragged.push_back({"words", DT_STRING, DT_INT64});
  spec.ragged.push_back({"ids", DT_INT64, DT_INT32});
  spec.ragged.push_back({"never", DT_FLOAT, DT_INT64});
  const std::vector<std::string> batch = {
      ExampleBuilder().Bytes("words", {"a", "b"}).Int64s("ids", {1}).Serialize(),
      ExampleBuilder().Serialize(),
      ExampleBuilder().Bytes("words", {"c"}).Int64s("ids", {2, 3, 4}).Serialize(),
  };
  auto out = RunParseExampleV2(spec, StringVector(batch));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_REQUIRE_EQUAL(t.size(), 6u);
  BOOST_CHECK(StringsOf(t[0]) == (std::vector<std::string>{"a", "b", "c"}));
  AF_EXPECT_OK(CheckTensor(t[1], DT_INT64, TensorShape{4}, {1, 2, 3, 4}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_FLOAT, TensorShape{0}, {}));
  AF_EXPECT_OK(CheckTensor(t[3], DT_INT64, TensorShape{4}, {0, 2, 2, 3}));
  AF_EXPECT_OK(CheckTensor(t[4], DT_INT32, TensorShape{4}, {0, 1, 1, 4}));
  AF_EXPECT_OK(CheckTensor(t[5], DT_INT64, TensorShape{4}, {0, 0, 0, 0}));

  Status s =
      RunParseExampleV2(spec, StringVector({ExampleBuilder().Floats("ids", {1}).Serialize()}))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'ids'") && Mentions(s, "int64_list"), s.ToString());
}

BOOST_AUTO_TEST_CASE(errors_name_example_and_feature) {
  Status s = RunParseExampleV2(MixedSpec(), StringVector({ExampleBuilder().Serialize()}),
                               StringVector({"rec0"}))
                 .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "example 0") && Mentions(s, "'rec0'") && Mentions(s, "'name'") &&
                          Mentions(s, "ParseExampleV2"),
                      s.ToString());

  s = RunParseExampleV2(
          MixedSpec(),
          StringVector({ExampleBuilder().Bytes("name", {"n"}).Floats("x", {1, 2}).Serialize()}))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'x'") && Mentions(s, "holds 2"), s.ToString());

  s = RunParseExampleV2(MixedSpec(), StringVector({std::string("\x0a\x7f", 2)})).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "could not parse"), s.ToString());

  Tensor matrix(DT_STRING, TensorShape{1, 1});
  s = RunParseExampleV2(MixedSpec(), matrix).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
}

BOOST_AUTO_TEST_CASE(key_vectors_must_match_the_attrs) {
  KernelRunner r("ParseExampleV2");
  r.Attr("Tdense", std::vector<DataType>{})
      .Attr("num_sparse", int64_t{1})
      .Attr("sparse_types", std::vector<DataType>{DT_INT64})
      .Attr("ragged_value_types", std::vector<DataType>{})
      .Attr("ragged_split_types", std::vector<DataType>{})
      .Attr("dense_shapes", ShapeList{});
  r.Input(StringVector({""}))
      .Input(EmptyOf(DT_STRING))
      .Input(StringVector({"a", "b"}))
      .Input(EmptyOf(DT_STRING))
      .Input(EmptyOf(DT_STRING));
  Status s = r.Run().status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "sparse_keys"), s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
