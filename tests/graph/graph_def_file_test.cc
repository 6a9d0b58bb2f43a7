#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "graph_test_util.h"

namespace af {
namespace {

using testing::Contains;
using testing::DataPath;
using testing::ReadBytes;

namespace fs = std::filesystem;

// A scratch directory removed at the end of each test.
struct TempDir {
  fs::path path = fs::temp_directory_path() /
                  ("af_graph_def_file_test_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string Write(const std::string& name, const std::string& bytes) const {
    const std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

tensorflow::GraphDef Regression() {
  tensorflow::GraphDef def;
  BOOST_REQUIRE(ReadGraphDefFile(DataPath("tf2onnx_regression_frozen.pb"), &def).ok());
  return def;
}

std::string AsText(const tensorflow::GraphDef& def) {
  std::string text;
  BOOST_REQUIRE(google::protobuf::TextFormat::PrintToString(def, &text));
  return text;
}

bool Same(const tensorflow::GraphDef& a, const tensorflow::GraphDef& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

BOOST_AUTO_TEST_CASE(reads_binary_and_text_by_extension) {
  const tensorflow::GraphDef binary = Regression();
  BOOST_TEST(binary.node_size() == 8);
  TempDir dir;
  for (const char* ext : {".pbtxt", ".pbtext", ".txt"}) {
    tensorflow::GraphDef text;
    Status s = ReadGraphDefFile(dir.Write(std::string("g") + ext, AsText(binary)), &text);
    BOOST_TEST(s.ok(), s);
    BOOST_TEST(Same(binary, text));
  }
}

BOOST_AUTO_TEST_CASE(other_extensions_try_binary_then_text) {
  const tensorflow::GraphDef binary = Regression();
  TempDir dir;
  tensorflow::GraphDef from_binary, from_text;
  BOOST_TEST(ReadGraphDefFile(dir.Write("a.graph", binary.SerializeAsString()), &from_binary).ok());
  BOOST_TEST(Same(binary, from_binary));
  BOOST_TEST(ReadGraphDefFile(dir.Write("b.graph", AsText(binary)), &from_text).ok());
  BOOST_TEST(Same(binary, from_text));
}

BOOST_AUTO_TEST_CASE(missing_file_is_not_found_and_names_the_path) {
  tensorflow::GraphDef def;
  const std::string path = DataPath("does_not_exist.pb");
  Status s = ReadGraphDefFile(path, &def);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(s.message(), path), s.message());
}

BOOST_AUTO_TEST_CASE(unparsable_files_name_the_path) {
  TempDir dir;
  tensorflow::GraphDef def;
  // Field 1 (node), length-delimited, claiming more bytes than follow.
  const std::string bad_pb = dir.Write("bad.pb", std::string("\x0a\x7f\x0a\x01", 4));
  Status s = ReadGraphDefFile(bad_pb, &def);
  BOOST_TEST(s.code() == Code::DATA_LOSS);
  BOOST_TEST(Contains(s.message(), bad_pb), s.message());
  BOOST_TEST(def.node_size() == 0);

  const std::string bad_txt = dir.Write("bad.pbtxt", "node { name: 'x' op: }\n");
  s = ReadGraphDefFile(bad_txt, &def);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), bad_txt), s.message());
  BOOST_TEST(Contains(s.message(), "line 1"), s.message());

  s = ReadGraphDefFile(dir.path.string(), &def);
  BOOST_TEST(!s.ok());
  BOOST_TEST(Contains(s.message(), dir.path.string()), s.message());
}

BOOST_AUTO_TEST_CASE(parse_bytes_reports_the_format_it_was_asked_for) {
  tensorflow::GraphDef def;
  const std::string bytes = ReadBytes(DataPath("tf2onnx_regression_frozen.pb"));
  BOOST_TEST(ParseGraphDefBytes(bytes, /*text=*/false, &def).ok());
  BOOST_TEST(def.node_size() == 8);
  BOOST_TEST(ParseGraphDefBytes("node {", /*text=*/true, &def).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(def.node_size() == 0);
}

}  // namespace
}  // namespace af
