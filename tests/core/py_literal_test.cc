#include <boost/test/unit_test.hpp>

#include <limits>

#include "core/py_literal.h"

namespace af {
namespace {

PyLiteral MustParse(std::string_view src) {
  PyLiteral v;
  Status s = ParsePyLiteral(src, &v);
  BOOST_REQUIRE_MESSAGE(s.ok(), src << ": " << s);
  return v;
}

BOOST_AUTO_TEST_SUITE(py_literal)

BOOST_AUTO_TEST_CASE(parses_the_values_npy_headers_use) {
  PyLiteral v = MustParse(" {'a': (1, 2,), \"b\": [True, False, None], 'c': (), 'd': (7,)} \n ");
  BOOST_TEST((v.kind == PyLiteral::Kind::kDict));
  BOOST_REQUIRE(v.items.size() == 8u);
  BOOST_TEST(v.items[0].text == "a");
  BOOST_TEST((v.items[1].kind == PyLiteral::Kind::kTuple));
  BOOST_TEST(v.items[1].items.size() == 2u);
  BOOST_TEST(v.items[1].items[1].integer == 2);
  BOOST_TEST((v.items[3].kind == PyLiteral::Kind::kList));
  BOOST_TEST(v.items[3].items[0].boolean);
  BOOST_TEST((v.items[3].items[2].kind == PyLiteral::Kind::kNone));
  BOOST_TEST(v.items[5].items.empty());
  BOOST_TEST(v.items[7].items.size() == 1u);
}

BOOST_AUTO_TEST_CASE(parenthesized_value_without_comma_is_not_a_tuple) {
  PyLiteral v = MustParse("(5)");
  BOOST_TEST((v.kind == PyLiteral::Kind::kInt));
  BOOST_TEST(v.integer == 5);
  BOOST_TEST((MustParse("(5,)").kind == PyLiteral::Kind::kTuple));
}

BOOST_AUTO_TEST_CASE(integers_cover_int64_and_python2_suffix) {
  BOOST_TEST(MustParse("-9223372036854775808").integer ==
             std::numeric_limits<int64_t>::min());
  BOOST_TEST(MustParse("9223372036854775807").integer ==
             std::numeric_limits<int64_t>::max());
  BOOST_TEST(MustParse("12L").integer == 12);
  BOOST_TEST(MustParse("- 3").integer == -3);
  PyLiteral v;
  BOOST_TEST(errors::IsInvalidArgument(ParsePyLiteral("9223372036854775808", &v)));
  BOOST_TEST(errors::IsInvalidArgument(ParsePyLiteral("123456789012345678901234", &v)));
  BOOST_TEST(errors::IsInvalidArgument(ParsePyLiteral("12x", &v)));
  BOOST_TEST(errors::IsInvalidArgument(ParsePyLiteral("-", &v)));
}

BOOST_AUTO_TEST_CASE(strings_keep_escaped_quotes) {
  BOOST_TEST(MustParse(R"('it\'s')").text == "it's");
  BOOST_TEST(MustParse(R"("a'b")").text == "a'b");
}

BOOST_AUTO_TEST_CASE(errors_name_the_offset) {
  PyLiteral v;
  Status s = ParsePyLiteral("{'a' 1}", &v);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(s.message().find("offset 5") != std::string::npos, s.ToString());
  for (std::string_view bad : {"", "{", "{'a': }", "(1 2)", "'open", "Truth", "{'a': 1}}",
                               "[1,,2]", "1.5", "{'a': 1,, }"}) {
    BOOST_TEST(errors::IsInvalidArgument(ParsePyLiteral(bad, &v)), bad);
  }
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_refused) {
  PyLiteral v;
  BOOST_TEST(ParsePyLiteral(std::string(30, '(') + "1," + std::string(30, ')'), &v).ok());
  Status s = ParsePyLiteral(std::string(100000, '['), &v);
  BOOST_TEST(errors::IsInvalidArgument(s));
  BOOST_TEST(s.message().find("nested") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
