// The log (core/logging.h): levels filter, a replaced sink sees every field,
// the default line carries time, level, task and the file from the
// repository root, and --log_level leaves a program's other arguments alone.
#include <mutex>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/logging.h"

namespace af {
namespace {

struct Captured {
  LogLevel level;
  std::string task, file, message;
  int line;
};

// Captures records for the test's lifetime and restores the defaults after.
class CapturingSink {
 public:
  CapturingSink() : saved_level_(MinLogLevel()), saved_task_(LogTaskName()) {
    SetLogSink([this](const LogRecord& r) {
      std::lock_guard<std::mutex> lock(mu_);
      records_.push_back({r.level, std::string(r.task), std::string(r.file),
                          std::string(r.message), r.line});
    });
  }
  ~CapturingSink() {
    SetLogSink(nullptr);
    SetMinLogLevel(saved_level_);
    SetLogTaskName(saved_task_);
  }
  std::vector<Captured> records() {
    std::lock_guard<std::mutex> lock(mu_);
    return records_;
  }

 private:
  std::mutex mu_;  // guards records_ (sinks run on any thread)
  std::vector<Captured> records_;
  LogLevel saved_level_;
  std::string saved_task_;
};

BOOST_AUTO_TEST_SUITE(logging)

BOOST_AUTO_TEST_CASE(lines_below_the_minimum_level_are_not_built) {
  CapturingSink sink;
  SetMinLogLevel(LogLevel::kWarning);
  int evaluated = 0;
  AF_LOG(INFO) << "hidden " << ++evaluated;
  AF_LOG(WARNING) << "shown " << ++evaluated;
  AF_LOG(ERROR) << "shown too";
  const auto records = sink.records();
  BOOST_TEST_REQUIRE(records.size() == 2u);
  BOOST_TEST(evaluated == 1);  // the hidden line's operands never ran
  BOOST_TEST(records[0].message == "shown 1");
  BOOST_TEST(static_cast<int>(records[0].level) == static_cast<int>(LogLevel::kWarning));
  BOOST_TEST(static_cast<int>(records[1].level) == static_cast<int>(LogLevel::kError));
}

BOOST_AUTO_TEST_CASE(a_sink_sees_the_task_and_the_file_from_the_repository_root) {
  CapturingSink sink;
  SetMinLogLevel(LogLevel::kDebug);
  SetLogTaskName("/job:ps/task:3");
  AF_VLOG << "detail";
  const auto records = sink.records();
  BOOST_TEST_REQUIRE(records.size() == 1u);
  BOOST_TEST(records[0].task == "/job:ps/task:3");
  BOOST_TEST(records[0].file == "tests/core/logging_test.cc");
  BOOST_TEST(records[0].line > 0);
  BOOST_TEST(static_cast<int>(records[0].level) == static_cast<int>(LogLevel::kDebug));
}

BOOST_AUTO_TEST_CASE(the_default_line_reads_like_tensorflows) {
  LogRecord r;
  r.level = LogLevel::kWarning;
  r.unix_micros = 1700000000123456;  // 2023-11-14 22:13:20.123456 UTC
  r.task = "/job:worker/task:1";
  r.file = "actors/worker/data_plane.cc";
  r.line = 52;
  r.message = "cannot listen";
  BOOST_TEST(FormatLogRecord(r) ==
             "2023-11-14 22:13:20.123456: W /job:worker/task:1 "
             "actors/worker/data_plane.cc:52] cannot listen");
  r.task = "";
  BOOST_TEST(FormatLogRecord(r) ==
             "2023-11-14 22:13:20.123456: W actors/worker/data_plane.cc:52] cannot listen");
}

BOOST_AUTO_TEST_CASE(levels_parse_by_name_and_by_tensorflows_numbers) {
  LogLevel level;
  BOOST_TEST(ParseLogLevel("DEBUG", &level));
  BOOST_TEST(static_cast<int>(level) == static_cast<int>(LogLevel::kDebug));
  BOOST_TEST(ParseLogLevel("1", &level));
  BOOST_TEST(static_cast<int>(level) == static_cast<int>(LogLevel::kWarning));
  BOOST_TEST(ParseLogLevel("error", &level));
  BOOST_TEST(!ParseLogLevel("loud", &level));
  BOOST_TEST(!ParseLogLevel("", &level));
}

BOOST_AUTO_TEST_CASE(log_level_flags_are_taken_out_of_a_programs_arguments) {
  CapturingSink sink;
  std::string a0 = "prog", a1 = "--steps", a2 = "3", a3 = "--log_level=error", a4 = "--log_level",
              a5 = "warning", a6 = "--", a7 = "--log_level=debug";
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(),
                  a5.data(), a6.data(), a7.data(), nullptr};
  int argc = 8;
  std::string error;
  BOOST_TEST(ConsumeLogLevelFlag(&argc, argv, &error), error);
  BOOST_TEST_REQUIRE(argc == 5);
  BOOST_TEST(std::string(argv[1]) == "--steps");
  BOOST_TEST(std::string(argv[2]) == "3");
  BOOST_TEST(std::string(argv[3]) == "--");  // what follows "--" is another program's
  BOOST_TEST(std::string(argv[4]) == "--log_level=debug");
  BOOST_TEST(argv[5] == nullptr);
  BOOST_TEST(static_cast<int>(MinLogLevel()) == static_cast<int>(LogLevel::kWarning));

  std::string b0 = "prog", b1 = "--log_level=loud";
  char* bad[] = {b0.data(), b1.data(), nullptr};
  argc = 2;
  BOOST_TEST(!ConsumeLogLevelFlag(&argc, bad, &error));
  BOOST_TEST(error.find("loud") != std::string::npos, error);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
