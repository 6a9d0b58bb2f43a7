// One flag style (core/flag_spelling.h): hyphenated names become snake_case
// with a warning, values and what follows "--" are left alone.
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/flag_spelling.h"
#include "core/logging.h"

namespace af {
namespace {

BOOST_AUTO_TEST_CASE(hyphenated_flag_names_become_snake_case_with_a_warning) {
  std::vector<std::string> warnings;
  SetLogSink([&](const LogRecord& r) { warnings.emplace_back(r.message); });
  std::vector<std::string> args = {"prog",        "--max-step-secs=2.5", "--secret-file",
                                   "/a/b-c.key",  "--port",              "--",
                                   "--keep-this"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  SnakeCaseFlags(static_cast<int>(argv.size()), argv.data());
  SetLogSink(nullptr);
  BOOST_TEST(std::string(argv[1]) == "--max_step_secs=2.5");
  BOOST_TEST(std::string(argv[2]) == "--secret_file");
  BOOST_TEST(std::string(argv[3]) == "/a/b-c.key");  // a value, not a flag
  BOOST_TEST(std::string(argv[4]) == "--port");
  BOOST_TEST(std::string(argv[6]) == "--keep-this");  // another program's
  BOOST_TEST_REQUIRE(warnings.size() == 2u);
  BOOST_TEST(warnings[0].find("--max-step-secs is spelled --max_step_secs") != std::string::npos,
             warnings[0]);
}

}  // namespace
}  // namespace af
