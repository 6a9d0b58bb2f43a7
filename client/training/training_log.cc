#include "client/training/training_log.h"

#include <cstdio>

namespace af {

std::string FormatSeconds(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

void LogToStderr(const std::string& line) {
  // One fprintf per line, so that lines of several threads do not mix.
  std::fprintf(stderr, "actorflow: training: %s\n", line.c_str());
}

}  // namespace af
