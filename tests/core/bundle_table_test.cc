// The LevelDB-format sorted table of .index files: round trips over many
// blocks, LevelDB's shortest separators, TensorFlow's exact bytes, and
// corruption reported as DATA_LOSS.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "core/bundle/table.h"
#include "tests/core/checkpoint_test_util.h"

namespace af::bundle {
namespace {

std::string DataFile(const std::string& rel) { return std::string(AF_TEST_DATA_DIR) + "/" + rel; }

BOOST_AUTO_TEST_SUITE(bundle_table)

BOOST_AUTO_TEST_CASE(round_trip_over_many_blocks) {
  TableOptions options;
  options.block_size = 256;  // many blocks, many restarts
  TableBuilder builder(options);
  std::vector<KeyValue> want;
  want.emplace_back("", "header");
  for (int i = 0; i < 500; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "layer%03d/kernel", i);
    want.emplace_back(key, std::string(static_cast<size_t>(i % 40), static_cast<char>(i)));
  }
  for (const auto& [k, v] : want) builder.Add(k, v);
  const std::string file = builder.Finish();
  std::vector<KeyValue> got;
  Status s = ReadTable(file, &got);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST((got == want));

  // An empty table (TensorFlow never writes one, but it is well formed).
  TableBuilder empty;
  BOOST_TEST(ReadTable(empty.Finish(), &got).ok());
  BOOST_TEST(got.empty());
}

BOOST_AUTO_TEST_CASE(separators_are_leveldbs) {
  std::string start = "abcdefg";
  ShortestSeparator(&start, "abzzz");
  BOOST_TEST(start == "abd");
  start = "abc";
  ShortestSeparator(&start, "abcd");  // a prefix: unchanged
  BOOST_TEST(start == "abc");
  start = "ab1";
  ShortestSeparator(&start, "ab2");  // no room between: unchanged
  BOOST_TEST(start == "ab1");
  std::string key = "counter";
  ShortSuccessor(&key);
  BOOST_TEST(key == "d");
  key = "\xff\xff"
        "a";
  ShortSuccessor(&key);
  BOOST_TEST(key == "\xff\xff"
                    "b");
}

// TensorFlow's uncompressed index of the counter model, rebuilt from its
// own entries, is the same file byte for byte.
BOOST_AUTO_TEST_CASE(rebuilds_tensorflows_file_byte_for_byte) {
  const std::string original = test::ReadBytes(
      DataFile("saved_models/saved_model_counter/00000123/variables/variables.index"));
  BOOST_TEST_REQUIRE(original.size() == 123u);
  std::vector<KeyValue> entries;
  Status s = ReadTable(original, &entries);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(entries.size() == 2u);
  TableBuilder builder;
  for (const auto& [k, v] : entries) builder.Add(k, v);
  BOOST_TEST((builder.Finish() == original));
}

BOOST_AUTO_TEST_CASE(snappy_blocks_of_tensorflows_files_read) {
  for (const char* m : {"half_plus_two_cpu", "half_plus_two_tf2_cpu"}) {
    const std::string file = test::ReadBytes(DataFile(std::string("saved_models/saved_model_") + m +
                                                      "/00000123/variables/variables.index"));
    std::vector<KeyValue> entries;
    Status s = ReadTable(file, &entries);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(entries.size() >= 4u);
    BOOST_TEST(entries[0].first == "");
  }
}

BOOST_AUTO_TEST_CASE(corruption_is_data_loss) {
  TableBuilder builder;
  builder.Add("a", "1");
  builder.Add("b", "2");
  const std::string file = builder.Finish();
  std::vector<KeyValue> got;
  for (size_t cut = 0; cut < file.size(); ++cut)
    BOOST_TEST(ReadTable(file.substr(0, cut), &got).code() == Code::DATA_LOSS);
  for (size_t i = 0; i < file.size(); ++i) {
    std::string bad = file;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    Status s = ReadTable(bad, &got);
    // The footer's zero padding is not checked by anything (nor by LevelDB).
    if (i >= file.size() - kTableFooterSize && i < file.size() - 8 && s.ok()) continue;
    BOOST_TEST(s.code() == Code::DATA_LOSS, "byte " << i);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::bundle
