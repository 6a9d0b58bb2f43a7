#include "client/training/training_log.h"
#include "core/logging.h"

#include <cstdio>

namespace af {

std::string FormatSeconds(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

void LogToStderr(const std::string& line) {
  AF_LOG(INFO) << "training: " << line;
}

}  // namespace af
