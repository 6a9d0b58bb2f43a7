// StringJoin and StaticRegexFullMatch, the string ops TensorFlow 2
// SavedModels use to name their checkpoint files.
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

Tensor Strings(const std::vector<std::string>& values, const TensorShape& shape) {
  return Tensor::FromVector<std::string>(values, shape);
}

BOOST_AUTO_TEST_SUITE(string_join_regex)

BOOST_AUTO_TEST_CASE(string_join_joins_elementwise_and_broadcasts_scalars) {
  KernelRunner r("StringJoin");
  r.Attr("separator", std::string("/"))
      .Input(Strings({"a", "b"}, {2}))
      .Input(Tensor::Scalar<std::string>("mid"))
      .Input(Strings({"x", "y"}, {2}));
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  const Tensor& t = (*out)[0];
  BOOST_TEST(t.shape() == TensorShape({2}));
  BOOST_TEST(t.data<std::string>()[0] == "a/mid/x");
  BOOST_TEST(t.data<std::string>()[1] == "b/mid/y");
}

BOOST_AUTO_TEST_CASE(string_join_of_scalars_is_a_scalar_and_the_separator_defaults_to_empty) {
  KernelRunner r("StringJoin");
  r.Input(Tensor::Scalar<std::string>("prefix")).Input(Tensor::Scalar<std::string>("_temp/part"));
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_TEST((*out)[0].dims() == 0);
  BOOST_TEST((*out)[0].scalar<std::string>() == "prefix_temp/part");
}

BOOST_AUTO_TEST_CASE(string_join_refuses_mismatched_shapes) {
  KernelRunner r("StringJoin", "join");
  r.Input(Strings({"a", "b"}, {2})).Input(Strings({"a", "b", "c"}, {3}));
  Status s = r.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "node 'join' (op 'StringJoin')"), s);
}

BOOST_AUTO_TEST_CASE(static_regex_full_match_matches_whole_strings) {
  KernelRunner r("StaticRegexFullMatch");
  // The pattern TensorFlow's SavedModel save function uses for remote paths.
  r.Attr("pattern", std::string("^s3://.*"))
      .Input(Strings({"s3://bucket/ckpt", "/tmp/s3://x", "s3:/"}, {3}));
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_BOOL, {3}, {1, 0, 0}));
  KernelRunner partial("StaticRegexFullMatch");
  partial.Attr("pattern", std::string("b+")).Input(Strings({"abba", "bb"}, {2}));
  out = partial.Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_BOOL, {2}, {0, 1}));
}

BOOST_AUTO_TEST_CASE(static_regex_full_match_refuses_a_bad_pattern) {
  KernelRunner r("StaticRegexFullMatch", "match");
  r.Attr("pattern", std::string("(unclosed")).Input(Strings({"x"}, {1}));
  Status s = r.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "'match'"), s);
  BOOST_TEST(Contains(s, "(unclosed"), s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
