#include "actors/worker/fault_hooks.h"
#include "core/logging.h"

namespace af::actors {

void FaultHooks::Log(const std::string& line) const {
  if (log) return log(line);
  AF_LOG(INFO) << line;
}

}  // namespace af::actors
