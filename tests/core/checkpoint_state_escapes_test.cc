// The `checkpoint` state file's strings as protobuf's text format writes
// them (C escapes, 3-digit octal for other bytes) and reads them (also hex,
// single quotes), and TensorFlow's timestamps kept through a rewrite.
#include <boost/test/unit_test.hpp>

#include <string>

#include "core/checkpoint_state.h"
#include "tests/core/checkpoint_test_util.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(checkpoint_state_escapes)

BOOST_AUTO_TEST_CASE(quote_as_protobuf_does) {
  BOOST_TEST(QuoteTextFormat("plain/model.ckpt-1") == "\"plain/model.ckpt-1\"");
  BOOST_TEST(QuoteTextFormat("a\"b'c\\d\n\t\r") == "\"a\\\"b\\'c\\\\d\\n\\t\\r\"");
  BOOST_TEST(QuoteTextFormat(std::string("\x01\x7f\xc3\xa9", 4)) == "\"\\001\\177\\303\\251\"");
}

BOOST_AUTO_TEST_CASE(unquote_every_escape) {
  std::string out;
  BOOST_TEST(UnquoteTextFormat("\"\\303\\251t\\351\"", &out));
  BOOST_TEST((out == std::string("\xc3\xa9t\xe9")));
  BOOST_TEST(UnquoteTextFormat("'single \\\"q\\' \\x41\\x4a\\0\\12'", &out));
  BOOST_TEST((out == std::string("single \"q' AJ\0\n", 15)));
  BOOST_TEST(UnquoteTextFormat("\"\\a\\b\\f\\v\\?\"", &out));
  BOOST_TEST(out == "\a\b\f\v?");
  for (const char* bad :
       {"\"open", "\"x\\\"", "\"\\q\"", "\"\\x\"", "\"\\777\"", "noquotes", "\"mixed'", "\"a\"b\""})
    BOOST_TEST(!UnquoteTextFormat(bad, &out), bad);
  // Everything round-trips.
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  BOOST_TEST(UnquoteTextFormat(QuoteTextFormat(all), &out));
  BOOST_TEST((out == all));
}

BOOST_AUTO_TEST_CASE(state_file_with_escapes_and_timestamps) {
  test::ScratchDir dir;
  test::WriteBytes(dir / "checkpoint", "model_checkpoint_path: \"caf\\303\\251-2\"\n"
                                       "all_model_checkpoint_paths: \"caf\\303\\251-1\"\n"
                                       "all_model_checkpoint_paths: \"caf\\303\\251-2\"\n"
                                       "all_model_checkpoint_timestamps: 1700000000.5\n"
                                       "all_model_checkpoint_timestamps: 1700000100.25\n"
                                       "last_preserved_timestamp: 1699999999.75\n");
  CheckpointState state;
  Status s = ReadCheckpointState(dir.path(), &state);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(state.latest == "caf\xc3\xa9-2");
  BOOST_TEST(state.all.size() == 2u);
  BOOST_TEST(state.all_timestamps.size() == 2u);
  BOOST_TEST(state.all_timestamps[1] == 1700000100.25);
  BOOST_TEST(state.last_preserved_timestamp == 1699999999.75);
  BOOST_TEST_REQUIRE(WriteCheckpointState(dir.path(), state).ok());
  BOOST_TEST(test::ReadBytes(dir / "checkpoint") ==
             "model_checkpoint_path: \"caf\\303\\251-2\"\n"
             "all_model_checkpoint_paths: \"caf\\303\\251-1\"\n"
             "all_model_checkpoint_paths: \"caf\\303\\251-2\"\n"
             "all_model_checkpoint_timestamps: 1700000000.5\n"
             "all_model_checkpoint_timestamps: 1700000100.25\n"
             "last_preserved_timestamp: 1699999999.75\n");
  // Recording a new checkpoint keeps one timestamp per path.
  BOOST_TEST_REQUIRE(RecordCheckpoint(dir.path(), dir / "next", 2).ok());
  BOOST_TEST_REQUIRE(ReadCheckpointState(dir.path(), &state).ok());
  BOOST_TEST(state.all.size() == 2u);
  BOOST_TEST(state.all_timestamps.size() == 2u);
  BOOST_TEST(state.latest == "next");
  BOOST_TEST(state.all_timestamps[1] > 1.7e9);

  test::WriteBytes(dir / "checkpoint", "all_model_checkpoint_timestamps: soon\n");
  BOOST_TEST(ReadCheckpointState(dir.path(), &state).code() == Code::DATA_LOSS);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
