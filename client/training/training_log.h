// Where the training loop and its hooks write their log lines (recoveries,
// checkpoints, steps per second). One function, so a program can route
// them to its own logger and a test can collect them.
#pragma once

#include <functional>
#include <string>
#include <utility>

namespace af {

using TrainingLog = std::function<void(const std::string&)>;

// "1.25 s": seconds for log lines and messages, to the millisecond.
std::string FormatSeconds(double seconds);

// Writes "actorflow: training: <line>" to stderr.
void LogToStderr(const std::string& line);

// `log` itself, or LogToStderr when it is empty.
inline TrainingLog OrStderr(TrainingLog log) {
  return log ? std::move(log) : TrainingLog(LogToStderr);
}

}  // namespace af
