// The log: one line per event, with the time, the level, the task that
// wrote it and where — so that the logs of a five-process cluster can be
// merged and read in order:
//
//   2026-11-27 20:31:05.123456: W /job:ps/task:0 actors/worker/data_plane.cc:52] text
//
//   AF_LOG(INFO) << "restored " << n << " variables";
//   AF_LOG(WARNING) << ...;  AF_LOG(ERROR) << ...;  AF_VLOG << ... (DEBUG)
//
// Lines below the minimum level cost one comparison. The minimum comes from
// ACTORFLOW_LOG_LEVEL (debug|info|warning|error, or TensorFlow's 0..3 with
// 0 = info) and from `--log_level` on every command; the task name from
// ACTORFLOW_TASK_NAME (which `actorflow cluster` sets for each task) or
// SetLogTaskName. Embedders replace where lines go with SetLogSink.
//
// AF_DCHECK(condition) << "why" states an internal invariant: checked and
// fatal in builds without NDEBUG, compiled out of release builds.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

namespace af {

enum class LogLevel : int { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// One event, as a sink receives it.
struct LogRecord {
  LogLevel level = LogLevel::kInfo;
  int64_t unix_micros = 0;  // wall-clock time it was written
  std::string_view task;    // "/job:ps/task:0", or "" when unknown
  std::string_view file;    // source path from the repository root
  int line = 0;
  std::string_view message;
};

// The line a record becomes on stderr (no trailing newline).
std::string FormatLogRecord(const LogRecord& record);

// Where records go; null restores the default (stderr, one write per
// line). Called from any thread, possibly at once: a sink must be
// thread-safe and must not log itself.
using LogSink = std::function<void(const LogRecord&)>;
void SetLogSink(LogSink sink);

LogLevel MinLogLevel();
void SetMinLogLevel(LogLevel level);
// "debug", "info", "warning", "error" (any case) or "0".."3" as
// TensorFlow's TF_CPP_MIN_LOG_LEVEL counts; false otherwise.
bool ParseLogLevel(std::string_view text, LogLevel* out);

void SetLogTaskName(std::string task);
std::string LogTaskName();

// Removes `--log_level=L` / `--log_level L` from a program's arguments and
// applies it, so every program accepts it beside its own flags; stops at
// "--". False (with `*error` set) for a bad level.
bool ConsumeLogLevelFlag(int* argc, char** argv, std::string* error);

namespace log_internal {

inline bool Enabled(LogLevel level) {
  extern int g_min_level;
  return static_cast<int>(level) >= g_min_level;
}

// Collects one line and hands it to the sink when it goes out of scope; a
// kFatal line aborts after that.
class LogMessage {
 public:
  LogMessage(LogLevel level, const char* file, int line);
  ~LogMessage();
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  const char* file_;
  int line_;
  std::ostringstream stream_;
};

// Lets `AF_LOG(...) << x` sit in a conditional expression.
struct Voidify {
  void operator&(std::ostream&) {}
};

constexpr LogLevel kDEBUG = LogLevel::kDebug;
constexpr LogLevel kINFO = LogLevel::kInfo;
constexpr LogLevel kWARNING = LogLevel::kWarning;
constexpr LogLevel kERROR = LogLevel::kError;
constexpr LogLevel kFATAL = LogLevel::kFatal;

}  // namespace log_internal
}  // namespace af

#define AF_LOG_AT(level_value)                                                       \
  !::af::log_internal::Enabled(level_value)                                          \
      ? (void)0                                                                      \
      : ::af::log_internal::Voidify() &                                              \
            ::af::log_internal::LogMessage(level_value, __FILE__, __LINE__).stream()

#define AF_LOG(severity) AF_LOG_AT(::af::log_internal::k##severity)
#define AF_VLOG AF_LOG(DEBUG)

#ifdef NDEBUG
#define AF_DCHECK(condition) \
  while (false && (condition)) ::af::log_internal::LogMessage(::af::LogLevel::kFatal, "", 0).stream()
#else
#define AF_DCHECK(condition)                                                      \
  (condition) ? (void)0                                                           \
              : ::af::log_internal::Voidify() &                                   \
                    ::af::log_internal::LogMessage(::af::LogLevel::kFatal,        \
                                                   __FILE__, __LINE__)            \
                            .stream()                                             \
                        << "check failed: " #condition " "
#endif
