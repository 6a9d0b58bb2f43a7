#include "core/logging.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>

namespace af {
namespace log_internal {

namespace {

int LevelFromEnvironment() {
  LogLevel level = LogLevel::kInfo;
  const char* env = std::getenv("ACTORFLOW_LOG_LEVEL");
  if (env != nullptr && *env != '\0' && !ParseLogLevel(env, &level)) {
    // g_min_level is still zero (debug) here, so the line is never filtered.
    LogMessage(LogLevel::kWarning, __FILE__, __LINE__).stream()
        << "ignoring ACTORFLOW_LOG_LEVEL=" << env << " (want debug, info, warning or error)";
  }
  return static_cast<int>(level);
}

}  // namespace

// Read on every AF_LOG, written rarely: a plain int, set before threads
// start in practice (a racing change only shows or hides a line).
int g_min_level = LevelFromEnvironment();

}  // namespace log_internal

namespace {

// Guards the sink and the task name, which change rarely and are copied
// out under it so that no sink runs while it is held.
std::mutex& ConfigMutex() {
  static std::mutex* const mutex = new std::mutex();
  return *mutex;
}
std::shared_ptr<const LogSink>& SinkSlot() {
  static auto* const slot = new std::shared_ptr<const LogSink>();
  return *slot;
}
std::shared_ptr<const std::string>& TaskSlot() {
  static auto* const slot = [] {
    const char* env = std::getenv("ACTORFLOW_TASK_NAME");
    return new std::shared_ptr<const std::string>(
        std::make_shared<const std::string>(env != nullptr ? env : ""));
  }();
  return *slot;
}

// Paths in the log are from the repository root: the prefix is what
// precedes this file's own path in __FILE__.
std::string_view RepositoryPath(const char* file) {
  std::string_view path = file;
#ifdef AF_SOURCE_ROOT
  // The checkout this was built from: other units' __FILE__ may be absolute
  // while this one's is relative, or the other way round (ccache's base_dir
  // makes paths inside the checkout relative, but not for every unit).
  constexpr std::string_view root = AF_SOURCE_ROOT "/";
  if (path.size() > root.size() && path.substr(0, root.size()) == root) {
    return path.substr(root.size());
  }
#endif
  // Relative to a build directory inside the checkout.
  if (path.starts_with("../")) {
    while (path.starts_with("../")) path.remove_prefix(3);
    return path;
  }
  static const size_t prefix = [] {
    const std::string_view self = __FILE__;
    const std::string_view tail = "core/logging.cc";
    return self.size() >= tail.size() && self.substr(self.size() - tail.size()) == tail
               ? self.size() - tail.size()
               : 0;
  }();
  const std::string_view self = __FILE__;
  if (prefix > 0 && path.size() > prefix && path.substr(0, prefix) == self.substr(0, prefix)) {
    return path.substr(prefix);
  }
  return path;
}

char LevelLetter(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return 'D';
    case LogLevel::kInfo:
      return 'I';
    case LogLevel::kWarning:
      return 'W';
    case LogLevel::kError:
      return 'E';
    case LogLevel::kFatal:
      return 'F';
  }
  return '?';
}

void WriteToStderr(const LogRecord& record) {
  std::string line = FormatLogRecord(record);
  line += '\n';
  // One write per line, so lines of different threads never interleave.
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string FormatLogRecord(const LogRecord& record) {
  const std::time_t seconds = static_cast<std::time_t>(record.unix_micros / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[48];
  std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02d %02d:%02d:%02d.%06lld: %c ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                utc.tm_sec, static_cast<long long>(record.unix_micros % 1000000),
                LevelLetter(record.level));
  std::string out = stamp;
  if (!record.task.empty()) {
    out += record.task;
    out += ' ';
  }
  if (!record.file.empty()) {
    out += record.file;
    out += ':';
    out += std::to_string(record.line);
    out += "] ";
  }
  out += record.message;
  return out;
}

void SetLogSink(LogSink sink) {
  auto shared = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
  std::lock_guard<std::mutex> lock(ConfigMutex());
  SinkSlot() = std::move(shared);
}

LogLevel MinLogLevel() { return static_cast<LogLevel>(log_internal::g_min_level); }

void SetMinLogLevel(LogLevel level) {
  // Fatal lines always show.
  log_internal::g_min_level = std::min(static_cast<int>(level), static_cast<int>(LogLevel::kError));
}

bool ParseLogLevel(std::string_view text, LogLevel* out) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "debug")
    *out = LogLevel::kDebug;
  else if (lower == "info" || lower == "0")
    *out = LogLevel::kInfo;
  else if (lower == "warning" || lower == "warn" || lower == "1")
    *out = LogLevel::kWarning;
  else if (lower == "error" || lower == "2" || lower == "3")
    *out = LogLevel::kError;
  else
    return false;
  return true;
}

void SetLogTaskName(std::string task) {
  auto shared = std::make_shared<const std::string>(std::move(task));
  std::lock_guard<std::mutex> lock(ConfigMutex());
  TaskSlot() = std::move(shared);
}

std::string LogTaskName() {
  std::lock_guard<std::mutex> lock(ConfigMutex());
  return *TaskSlot();
}

bool ConsumeLogLevelFlag(int* argc, char** argv, std::string* error) {
  static constexpr std::string_view kFlag = "--log_level";
  int kept = 1;
  bool ok = true;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      for (; i < *argc; ++i) argv[kept++] = argv[i];
      break;
    }
    std::string_view value;
    if (arg.substr(0, kFlag.size() + 1) == std::string(kFlag) + "=") {
      value = arg.substr(kFlag.size() + 1);
    } else if (arg == kFlag && i + 1 < *argc) {
      value = argv[++i];
    } else if (arg == kFlag) {
      value = "";
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    LogLevel level;
    if (!ParseLogLevel(value, &level)) {
      *error = "--log_level wants debug, info, warning or error, not '" + std::string(value) + "'";
      ok = false;
      continue;
    }
    SetMinLogLevel(level);
  }
  *argc = kept;
  argv[kept] = nullptr;
  return ok;
}

namespace log_internal {

LogMessage::LogMessage(LogLevel level, const char* file, int line)
    : level_(level), file_(file), line_(line) {}

LogMessage::~LogMessage() {
  std::shared_ptr<const LogSink> sink;
  std::shared_ptr<const std::string> task;
  {
    std::lock_guard<std::mutex> lock(ConfigMutex());
    sink = SinkSlot();
    task = TaskSlot();
  }
  const std::string message = stream_.str();
  LogRecord record;
  record.level = level_;
  record.unix_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  record.task = *task;
  record.file = RepositoryPath(file_);
  record.line = line_;
  record.message = message;
  if (sink) {
    (*sink)(record);
  } else {
    WriteToStderr(record);
  }
  if (level_ == LogLevel::kFatal) std::abort();
}

}  // namespace log_internal
}  // namespace af
