// The Example wire decoder (kernels/parsing/example_wire.h) on encodings the
// generated classes never write but protobuf accepts: unpacked lists,
// repeated and merged fields, oneof switches, unknown fields and groups.
// Each record is written byte by byte and parsed by ParseExample.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "tests/kernels/example_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Mentions;
namespace w = wire;

std::string FloatList(const std::string& body) { return w::Len(2, body); }
std::string Int64List(const std::string& body) { return w::Len(3, body); }
std::string PackedFloats(const std::vector<float>& v) {
  std::string bytes(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  return w::Len(1, bytes);
}

// Parses `record` asking for sparse feature `key` of `dtype`.
StatusOr<std::vector<Tensor>> ParseSparse(const std::string& record, const std::string& key,
                                          DataType dtype) {
  ParseSpec spec;
  spec.sparse.push_back({key, dtype});
  return RunParseExample(spec, StringVector({record}));
}

BOOST_AUTO_TEST_SUITE(parse_example_wire)

BOOST_AUTO_TEST_CASE(unpacked_and_mixed_lists) {
  const std::string floats =
      FloatList(w::Fixed32(1, 1.5f) + PackedFloats({2.5f, 3.5f}) + w::Fixed32(1, -4.f));
  auto out = ParseSparse(w::Example(w::Entry("f", floats)), "f", DT_FLOAT);
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_FLOAT, TensorShape{4}, {1.5, 2.5, 3.5, -4}));

  const std::string ints =
      Int64List(w::Tag(1, 0) + w::Varint(5) + w::Len(1, w::Varint(6) + w::Varint(~uint64_t{0})));
  out = ParseSparse(w::Example(w::Entry("i", ints)), "i", DT_INT64);
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_INT64, TensorShape{3}, {5, 6, -1}));
}

BOOST_AUTO_TEST_CASE(repeated_features_merge_and_later_entries_win) {
  const std::string record = w::Len(1, w::Entry("a", FloatList(PackedFloats({1}))) +
                                           w::Entry("b", FloatList(PackedFloats({2})))) +
                             w::Len(1, w::Entry("a", FloatList(PackedFloats({3, 4}))));
  ParseSpec spec;
  spec.sparse.push_back({"a", DT_FLOAT});
  spec.sparse.push_back({"b", DT_FLOAT});
  auto out = RunParseExample(spec, StringVector({record}));
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[2], DT_FLOAT, TensorShape{2}, {3, 4}));
  AF_EXPECT_OK(CheckTensor(out.value()[3], DT_FLOAT, TensorShape{1}, {2}));
}

BOOST_AUTO_TEST_CASE(oneof_switches_and_merges) {
  // float_list then int64_list: the int64_list wins.
  std::string feature = FloatList(PackedFloats({1})) + Int64List(w::Len(1, w::Varint(5)));
  auto out = ParseSparse(w::Example(w::Entry("k", feature)), "k", DT_INT64);
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_INT64, TensorShape{1}, {5}));
  Status s = ParseSparse(w::Example(w::Entry("k", feature)), "k", DT_FLOAT).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));

  // int64, float, float: the two float lists merge; the int64 one is gone.
  feature = Int64List(w::Len(1, w::Varint(5))) + FloatList(PackedFloats({1})) +
            FloatList(PackedFloats({2}));
  out = ParseSparse(w::Example(w::Entry("k", feature)), "k", DT_FLOAT);
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_FLOAT, TensorShape{2}, {1, 2}));

  // A map entry's value given twice merges the two Features.
  const std::string entry = w::Len(1, w::Len(1, "k") + w::Len(2, FloatList(PackedFloats({7}))) +
                                          w::Len(2, FloatList(PackedFloats({8}))));
  out = ParseSparse(w::Example(entry), "k", DT_FLOAT);
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_FLOAT, TensorShape{2}, {7, 8}));
}

BOOST_AUTO_TEST_CASE(unknown_fields_and_groups_are_skipped) {
  const std::string list = w::Tag(2, 0) + w::Varint(99) + PackedFloats({1.25f});
  const std::string feature =
      w::Len(9, "junk") + FloatList(list) + w::Tag(8, 1) + std::string(8, '\x01');
  const std::string entry =
      w::Len(1, w::Tag(3, 5) + std::string(4, '\x02') + w::Len(1, "k") + w::Len(2, feature));
  const std::string group =
      w::Tag(7, 3) + w::Tag(1, 0) + w::Varint(1) + w::Tag(2, 3) + w::Tag(2, 4) + w::Tag(7, 4);
  const std::string record =
      w::Tag(5, 0) + w::Varint(300) + group + w::Len(1, w::Tag(2, 1) + std::string(8, 'x') + entry);
  auto out = ParseSparse(record, "k", DT_FLOAT);
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor(out.value()[1], DT_FLOAT, TensorShape{1}, {1.25}));
}

BOOST_AUTO_TEST_CASE(malformed_lists_name_the_feature) {
  const std::string bad_floats = FloatList(w::Len(1, std::string(6, '\0')));
  Status s = ParseSparse(w::Example(w::Entry("k", bad_floats)), "k", DT_FLOAT).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'k'") && Mentions(s, "multiple of 4"), s.ToString());

  const std::string bad_varint = Int64List(w::Len(1, std::string("\x80\x80", 2)));
  s = ParseSparse(w::Example(w::Entry("k", bad_varint)), "k", DT_INT64).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
  BOOST_CHECK_MESSAGE(Mentions(s, "'k'") && Mentions(s, "varint"), s.ToString());

  const std::string unclosed_group = w::Tag(7, 3) + w::Tag(1, 0) + w::Varint(1);
  s = ParseSparse(unclosed_group, "k", DT_INT64).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));

  std::string deep;  // groups nested past the bound
  for (int i = 0; i < 200; ++i) deep += w::Tag(7, 3);
  s = ParseSparse(deep, "k", DT_INT64).status();
  BOOST_CHECK(errors::IsInvalidArgument(s));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
