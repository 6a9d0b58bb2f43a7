#include "actors/worker/fault_hooks.h"

#include <cstdio>

namespace af::actors {

void FaultHooks::Log(const std::string& line) const {
  if (log) return log(line);
  std::fprintf(stderr, "actorflow %s\n", line.c_str());
}

}  // namespace af::actors
