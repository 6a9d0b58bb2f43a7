// Shared by the tests that run examples/fashion_mnist: whether Debian's
// data set is there, and the JSON report a run prints last.
#pragma once

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/client/json_test_util.h"

namespace af::testing {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

inline bool HaveFashionMnist() {
  const std::string dir = kFashionMnistDir;
  return std::filesystem::exists(dir + "/train-images-idx3-ubyte.gz") &&
         std::filesystem::exists(dir + "/t10k-labels-idx1-ubyte.gz");
}

// The last line of `output` that starts with '{', parsed.
inline JsonValue LastJsonLine(const std::string& output) {
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line[0] == '{') last = line;
  JsonValue v;
  std::string error;
  BOOST_TEST_REQUIRE(JsonParser::Parse(last, &v, &error), error << " in: " << output);
  return v;
}

}  // namespace af::testing
