// DecodeCSV against values written out by hand: quoting, defaults and
// required columns, na_value, select_cols, other delimiters, every output
// type, and the INVALID_ARGUMENT errors for bad records and bad numbers.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/example_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Mentions;

struct Csv {
  std::vector<Tensor> defaults;
  std::string delim = ",";
  bool use_quote_delim = true;
  std::string na_value;
  std::vector<int64_t> select_cols;

  StatusOr<std::vector<Tensor>> Run(Tensor records) const {
    KernelRunner r("DecodeCSV", "csv");
    std::vector<DataType> types;
    for (const Tensor& d : defaults) types.push_back(d.dtype());
    r.Attr("OUT_TYPE", types)
        .Attr("field_delim", delim)
        .Attr("use_quote_delim", use_quote_delim)
        .Attr("na_value", na_value)
        .Attr("select_cols", select_cols);
    r.Input(std::move(records));
    for (const Tensor& d : defaults) r.Input(d);
    return r.Run();
  }
  StatusOr<std::vector<Tensor>> Run(const std::vector<std::string>& records) const {
    return Run(StringVector(records));
  }
};

BOOST_AUTO_TEST_SUITE(decode_csv)

BOOST_AUTO_TEST_CASE(every_type_and_quoting) {
  Csv csv;
  csv.defaults = {EmptyOf(DT_INT32), EmptyOf(DT_FLOAT), EmptyOf(DT_STRING), EmptyOf(DT_INT64),
                  EmptyOf(DT_DOUBLE)};
  auto out = csv.Run(
      {"1,2.5,abc,7,0.1", "-3,-1e3,\"q,uo\"\"te\",8589934592,\"2\"", " 4 ,+1.5,\"\"\"\",-9, inf"});
  AF_REQUIRE_OK(out.status());
  const auto& t = out.value();
  BOOST_REQUIRE_EQUAL(t.size(), 5u);
  AF_EXPECT_OK(CheckTensor(t[0], DT_INT32, TensorShape{3}, {1, -3, 4}));
  AF_EXPECT_OK(CheckTensor(t[1], DT_FLOAT, TensorShape{3}, {2.5, -1000, 1.5}));
  BOOST_CHECK(StringsOf(t[2]) == (std::vector<std::string>{"abc", "q,uo\"te", "\""}));
  AF_EXPECT_OK(CheckTensor(t[3], DT_INT64, TensorShape{3}, {7, 8589934592.0, -9}));
  BOOST_REQUIRE_EQUAL(t[4].dtype(), DT_DOUBLE);
  BOOST_CHECK_EQUAL(t[4].data<double>()[0], 0.1);
  BOOST_CHECK_EQUAL(t[4].data<double>()[1], 2.0);
  BOOST_CHECK(std::isinf(t[4].data<double>()[2]));
}

BOOST_AUTO_TEST_CASE(records_keep_their_shape) {
  Csv csv;
  csv.defaults = {Tensor::Scalar<float>(0), Tensor::FromVector<int32_t>({-1})};
  auto out = csv.Run(Tensor::FromVector<std::string>({"1,2", ",", "3,", ",4"}, TensorShape{2, 2}));
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_FLOAT, TensorShape{2, 2}, {1, 0, 3, 0}));
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_INT32, TensorShape{2, 2}, {2, -1, -1, 4}));
}

BOOST_AUTO_TEST_CASE(defaults_na_value_and_required_fields) {
  Csv csv;
  csv.defaults = {Tensor::Scalar<int64_t>(42), Tensor::Scalar<std::string>("dflt"),
                  EmptyOf(DT_FLOAT)};
  csv.na_value = "NA";
  auto out = csv.Run({"NA,NA,1", ",,2", "5,x,3"});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_INT64, TensorShape{3}, {42, 42, 5}));
  BOOST_CHECK(StringsOf(out.value()[1]) == (std::vector<std::string>{"dflt", "dflt", "x"}));
  AF_EXPECT_OK(CheckTensor(out.value()[2], DT_FLOAT, TensorShape{3}, {1, 2, 3}));

  Status s = csv.Run({"1,a,1", "1,a,NA"}).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "field 2") && Mentions(s, "required") &&
                          Mentions(s, "record 1") && Mentions(s, "'csv'"),
                      s.ToString());
}

BOOST_AUTO_TEST_CASE(select_cols_picks_columns) {
  Csv csv;
  csv.defaults = {EmptyOf(DT_STRING), EmptyOf(DT_INT32)};
  csv.select_cols = {1, 3};
  // Columns after the last selected one are not read, even malformed ones.
  auto out = csv.Run({"a,b,c,4", "\"x\",\"y\",z,5,\"unterminated"});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK(StringsOf(out.value()[0]) == (std::vector<std::string>{"b", "y"}));
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_INT32, TensorShape{2}, {4, 5}));

  Status s = csv.Run({"a,b,c"}).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "expected 2 fields") && Mentions(s, "record 0"), s.ToString());

  // A trailing delimiter makes an empty selected last column.
  csv.defaults[1] = Tensor::Scalar<int32_t>(9);
  out = csv.Run({"a,b,c,"});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_INT32, TensorShape{1}, {9}));

  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{3, 1}, std::vector<int64_t>{1, 1},
                                          std::vector<int64_t>{-1, 2}, std::vector<int64_t>{1}}) {
    csv.select_cols = bad;
    BOOST_CHECK(errors::IsInvalidArgument(csv.Run({"a,b,c,d"}).status()));
  }
}

BOOST_AUTO_TEST_CASE(wrong_column_count) {
  Csv csv;
  csv.defaults = {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(0),
                  Tensor::Scalar<int32_t>(0)};
  for (const std::string record : {"1,2", "1,2,3,4", "1,2,3,"}) {
    Status s = csv.Run({"1,2,3", record}).status();
    BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(s), record << ": " << s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, "expected 3 fields") && Mentions(s, "record 1"), s.ToString());
  }
}

BOOST_AUTO_TEST_CASE(bad_numbers) {
  struct Case {
    Tensor def;
    std::string field;
  };
  const std::vector<Case> cases = {
      {Tensor::Scalar<int32_t>(0), "abc"}, {Tensor::Scalar<int32_t>(0), "3000000000"},
      {Tensor::Scalar<int32_t>(0), "1.5"}, {Tensor::Scalar<int64_t>(0), "99999999999999999999"},
      {Tensor::Scalar<int64_t>(0), "+-1"}, {Tensor::Scalar<float>(0), "1.5x"},
      {Tensor::Scalar<float>(0), "0x10"},  {Tensor::Scalar<double>(0), "1e"},
      {Tensor::Scalar<double>(0), "1 2"},
  };
  for (const Case& c : cases) {
    Csv csv;
    csv.defaults = {c.def};
    Status s = csv.Run({c.field}).status();
    BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(s), c.field << ": " << s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, "not a valid " + DataTypeString(c.def.dtype())) &&
                            Mentions(s, "'" + c.field + "'"),
                        s.ToString());
  }
}

BOOST_AUTO_TEST_CASE(malformed_quotes) {
  Csv csv;
  csv.defaults = {Tensor::Scalar<std::string>(""), Tensor::Scalar<std::string>("")};
  for (const std::string record : {"\"abc,d", "ab\"c,d", "\"a\"b,c", "a,b\nc"}) {
    Status s = csv.Run({record}).status();
    BOOST_CHECK_MESSAGE(errors::IsInvalidArgument(s), record << ": " << s.ToString());
    BOOST_CHECK_MESSAGE(Mentions(s, "record 0"), s.ToString());
  }
  // Without quote handling, quotes are plain characters.
  csv.use_quote_delim = false;
  auto out = csv.Run({"\"a\",b\"c"});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK(StringsOf(out.value()[0]) == (std::vector<std::string>{"\"a\""}));
  BOOST_CHECK(StringsOf(out.value()[1]) == (std::vector<std::string>{"b\"c"}));
}

BOOST_AUTO_TEST_CASE(other_delimiters_and_bad_attrs) {
  Csv csv;
  csv.defaults = {Tensor::Scalar<int32_t>(0), Tensor::Scalar<std::string>("")};
  csv.delim = "\t";
  auto out = csv.Run({"1\ta,b", "\r\n2\t\"x\ty\""});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[0], DT_INT32, TensorShape{2}, {1, 2}));
  BOOST_CHECK(StringsOf(out.value()[1]) == (std::vector<std::string>{"a,b", "x\ty"}));

  csv.delim = "ab";
  BOOST_CHECK(errors::IsInvalidArgument(csv.Run({"1ab2"}).status()));

  Csv two_defaults;
  two_defaults.defaults = {Tensor::FromVector<int32_t>({1, 2})};
  Status s = two_defaults.Run({"1"}).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "record_defaults[0]"), s.ToString());
}

// Random records over the characters that matter: OK or INVALID_ARGUMENT,
// never a crash.
BOOST_AUTO_TEST_CASE(random_records_never_crash) {
  std::mt19937 rng(4180);
  const std::string alphabet = ",\"a1.-e \n\r+";
  Csv csv;
  csv.defaults = {Tensor::Scalar<int32_t>(0), Tensor::Scalar<float>(0),
                  Tensor::Scalar<std::string>("")};
  int ok = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::string record(rng() % 16, ' ');
    for (char& c : record) c = alphabet[rng() % alphabet.size()];
    csv.select_cols = (iter % 3 == 0) ? std::vector<int64_t>{0, 2, 5} : std::vector<int64_t>{};
    Status s = csv.Run({record}).status();
    if (s.ok()) ++ok;
    BOOST_CHECK_MESSAGE(s.ok() || errors::IsInvalidArgument(s), s.ToString());
  }
  BOOST_CHECK_GT(ok, 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
