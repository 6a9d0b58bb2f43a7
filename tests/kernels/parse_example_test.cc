// ParseExample (v1) on Examples built with the generated classes, against
// values written out by hand: dense features with and without defaults,
// sparse features across a batch, variable-length dense, and the errors for
// wrong kinds, wrong lengths and malformed records.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "tests/kernels/example_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Mentions;

Tensor FloatDefault(std::vector<float> v, TensorShape shape) {
  return Tensor::FromVector<float>(v, shape);
}

// The two features of TensorFlow's half_plus_two SavedModels.
ParseSpec HalfPlusTwoSpec() {
  ParseSpec spec;
  spec.dense.push_back({"x", DT_FLOAT, PartialTensorShape{1}, FloatDefault({0}, TensorShape{1})});
  spec.dense.push_back({"x2", DT_FLOAT, PartialTensorShape{1}, FloatDefault({0}, TensorShape{1})});
  return spec;
}

BOOST_AUTO_TEST_SUITE(parse_example)

BOOST_AUTO_TEST_CASE(dense_with_defaults_and_missing_features) {
  const std::vector<std::string> batch = {
      ExampleBuilder().Floats("x", {3}).Floats("x2", {4}).Serialize(),
      ExampleBuilder().Floats("x", {5}).Bytes("other", {"ignored"}).Serialize(),
      ExampleBuilder().Serialize(),
  };
  auto out = RunParseExample(HalfPlusTwoSpec(), StringVector(batch));
  AF_REQUIRE_OK(out.status());
  BOOST_REQUIRE_EQUAL(out.value().size(), 2u);
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_FLOAT, TensorShape{3, 1}, {3, 5, 0}));
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_FLOAT, TensorShape{3, 1}, {4, 0, 0}));
}

// As TensorFlow 1 wrote saved_model_half_plus_two_cpu's ParseExample node:
// x's default is an empty float tensor (x is required), x2's is [0].
BOOST_AUTO_TEST_CASE(half_plus_two_regress_inputs) {
  ParseSpec spec = HalfPlusTwoSpec();
  spec.dense[0].default_value = EmptyOf(DT_FLOAT);
  auto out = RunParseExample(
      spec, StringVector({ExampleBuilder().Floats("x", {3}).Serialize(),
                          ExampleBuilder().Floats("x", {1}).Floats("x2", {4}).Serialize()}));
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_FLOAT, TensorShape{2, 1}, {3, 1}));
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_FLOAT, TensorShape{2, 1}, {0, 4}));

  Status s = RunParseExample(spec, StringVector({ExampleBuilder().Floats("x2", {4}).Serialize()}))
                 .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'x'") && Mentions(s, "required"), s.ToString());
}

BOOST_AUTO_TEST_CASE(dense_int64_and_string_with_shapes) {
  ParseSpec spec;
  spec.dense.push_back({"ids", DT_INT64, PartialTensorShape{2},
                        Tensor::FromVector<int64_t>({-1, -2}, TensorShape{2})});
  spec.dense.push_back({"label", DT_STRING, ScalarShape(), Tensor::Scalar<std::string>("none")});
  spec.dense.push_back({"grid", DT_FLOAT, PartialTensorShape{2, 2}, EmptyOf(DT_FLOAT)});
  const std::vector<std::string> batch = {
      ExampleBuilder()
          .Int64s("ids", {1LL << 40, -7})
          .Bytes("label", {"cat"})
          .Floats("grid", {1, 2, 3, 4})
          .Serialize(),
      ExampleBuilder().Floats("grid", {5, 6, 7, 8}).Serialize(),
  };
  auto out = RunParseExample(spec, StringVector(batch));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_REQUIRE_EQUAL(t.size(), 3u);
  BOOST_REQUIRE(t[0].shape() == (TensorShape{2, 2}));
  BOOST_CHECK_EQUAL(t[0].data<int64_t>()[0], 1LL << 40);
  BOOST_CHECK_EQUAL(t[0].data<int64_t>()[1], -7);
  BOOST_CHECK_EQUAL(t[0].data<int64_t>()[2], -1);
  BOOST_CHECK_EQUAL(t[0].data<int64_t>()[3], -2);
  BOOST_REQUIRE(t[1].shape() == (TensorShape{2}));
  BOOST_CHECK(StringsOf(t[1]) == (std::vector<std::string>{"cat", "none"}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_FLOAT, TensorShape{2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
}

BOOST_AUTO_TEST_CASE(required_feature_missing) {
  ParseSpec spec;
  spec.dense.push_back({"x", DT_FLOAT, PartialTensorShape{1}, EmptyOf(DT_FLOAT)});
  const std::vector<std::string> batch = {ExampleBuilder().Floats("x", {1}).Serialize(),
                                          ExampleBuilder().Floats("y", {1}).Serialize()};
  Status s = RunParseExample(spec, StringVector(batch), StringVector({"first", "second"})).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "example 1") && Mentions(s, "'second'") && Mentions(s, "'x'") &&
                          Mentions(s, "required") && Mentions(s, "'parse'") &&
                          Mentions(s, "ParseExample"),
                      s.ToString());
}

BOOST_AUTO_TEST_CASE(sparse_features_across_a_batch) {
  ParseSpec spec;
  spec.sparse.push_back({"ids", DT_INT64});
  spec.sparse.push_back({"words", DT_STRING});
  spec.dense.push_back({"x", DT_FLOAT, ScalarShape(), Tensor::Scalar<float>(-1)});
  const std::vector<std::string> batch = {
      ExampleBuilder().Int64s("ids", {7, 8}).Bytes("words", {"a"}).Serialize(),
      ExampleBuilder().Floats("x", {2.5}).Serialize(),
      ExampleBuilder().Int64s("ids", {9}).Bytes("words", {"b", "c", "d"}).Serialize(),
      ExampleBuilder().Int64s("ids", {}).Serialize(),
  };
  auto out = RunParseExample(spec, StringVector(batch));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  // sparse_indices x2, sparse_values x2, sparse_shapes x2, dense_values x1
  BOOST_REQUIRE_EQUAL(t.size(), 7u);
  AF_EXPECT_OK(CheckTensor(t[0], DT_INT64, TensorShape{3, 2}, {0, 0, 0, 1, 2, 0}));
  AF_EXPECT_OK(CheckTensor(t[1], DT_INT64, TensorShape{4, 2}, {0, 0, 2, 0, 2, 1, 2, 2}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_INT64, TensorShape{3}, {7, 8, 9}));
  BOOST_REQUIRE_EQUAL(t[3].dtype(), DT_STRING);
  BOOST_CHECK(StringsOf(t[3]) == (std::vector<std::string>{"a", "b", "c", "d"}));
  AF_EXPECT_OK(CheckTensor(t[4], DT_INT64, TensorShape{2}, {4, 2}));
  AF_EXPECT_OK(CheckTensor(t[5], DT_INT64, TensorShape{2}, {4, 3}));
  AF_EXPECT_OK(CheckTensor(t[6], DT_FLOAT, TensorShape{4}, {-1, 2.5, -1, -1}));
}

BOOST_AUTO_TEST_CASE(empty_batch) {
  ParseSpec spec = HalfPlusTwoSpec();
  spec.sparse.push_back({"ids", DT_INT64});
  auto out = RunParseExample(spec, StringVector({}));
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_CHECK(t[0].shape() == (TensorShape{0, 2}));
  AF_EXPECT_OK(CheckTensor(t[2], DT_INT64, TensorShape{2}, {0, 0}));
  BOOST_CHECK(t[3].shape() == (TensorShape{0, 1}));
}

BOOST_AUTO_TEST_CASE(variable_length_dense_is_padded) {
  ParseSpec spec;
  spec.dense.push_back({"pts", DT_FLOAT, PartialTensorShape{-1, 2}, Tensor::Scalar<float>(-1)});
  const std::vector<std::string> batch = {
      ExampleBuilder().Floats("pts", {1, 2, 3, 4}).Serialize(),
      ExampleBuilder().Floats("pts", {5, 6}).Serialize(),
      ExampleBuilder().Serialize(),
  };
  auto out = RunParseExample(spec, StringVector(batch));
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_FLOAT, TensorShape{3, 2, 2},
                           {1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1}));

  // Not a multiple of the row size.
  Status s =
      RunParseExample(spec, StringVector({ExampleBuilder().Floats("pts", {1, 2, 3}).Serialize()}))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'pts'") && Mentions(s, "multiple of 2"), s.ToString());

  // The padding default must be one value.
  spec.dense[0].default_value = EmptyOf(DT_FLOAT);
  s = RunParseExample(spec, StringVector({ExampleBuilder().Serialize()})).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "padding"), s.ToString());
}

BOOST_AUTO_TEST_CASE(wrong_kind_is_invalid_argument) {
  const std::vector<std::string> batch = {ExampleBuilder().Int64s("x", {3}).Serialize()};
  Status s = RunParseExample(HalfPlusTwoSpec(), StringVector(batch)).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "example 0") && Mentions(s, "'x'") && Mentions(s, "float_list") &&
                          Mentions(s, "int64_list"),
                      s.ToString());

  ParseSpec sparse;
  sparse.sparse.push_back({"words", DT_STRING});
  s = RunParseExample(sparse, StringVector({ExampleBuilder().Floats("words", {1}).Serialize()}))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'words'") && Mentions(s, "bytes_list"), s.ToString());
}

BOOST_AUTO_TEST_CASE(wrong_length_is_invalid_argument) {
  const std::vector<std::string> batch = {ExampleBuilder().Floats("x", {1}).Serialize(),
                                          ExampleBuilder().Floats("x", {1, 2}).Serialize()};
  Status s = RunParseExample(HalfPlusTwoSpec(), StringVector(batch)).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "example 1") && Mentions(s, "'x'") && Mentions(s, "holds 2"),
                      s.ToString());

  // A feature present with no list has no values: wrong length for [1].
  s = RunParseExample(HalfPlusTwoSpec(), StringVector({ExampleBuilder().Empty("x").Serialize()}))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "holds 0"), s.ToString());
}

BOOST_AUTO_TEST_CASE(malformed_records_are_invalid_argument) {
  const std::string good = ExampleBuilder().Floats("x", {3}).Floats("x2", {4}).Serialize();
  // Every proper prefix of a good record but the empty one is malformed:
  // each cuts a length-delimited field short.
  for (size_t cut = 1; cut < good.size(); ++cut) {
    Status s = RunParseExample(HalfPlusTwoSpec(), StringVector({good, good.substr(0, cut)}),
                               StringVector({"ok", "cut"}))
                   .status();
    BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(s), "cut at " << cut << ": " << s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, "example 1") && Mentions(s, "'cut'"), s.ToString());
  }
  for (const std::string& garbage :
       {std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11), std::string("\x0a\x05"),
        std::string("\x0c"), std::string("\x0f\x01"), std::string("\x00", 1)}) {
    Status s = RunParseExample(HalfPlusTwoSpec(), StringVector({garbage})).status();
    BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(s), s.ToString());
  }
}

BOOST_AUTO_TEST_CASE(serialized_must_be_a_vector) {
  Status s =
      RunParseExample(HalfPlusTwoSpec(), Tensor::Scalar<std::string>(ExampleBuilder().Serialize()))
          .status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "vector"), s.ToString());

  s = RunParseExample(HalfPlusTwoSpec(), StringVector({"", ""}), StringVector({"one"})).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "names"), s.ToString());
}

BOOST_AUTO_TEST_CASE(default_shape_must_match) {
  ParseSpec spec;
  spec.dense.push_back(
      {"x", DT_FLOAT, PartialTensorShape{2}, FloatDefault({0, 0, 0}, TensorShape{3})});
  Status s = RunParseExample(spec, StringVector({""})).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "dense_defaults[0]"), s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
