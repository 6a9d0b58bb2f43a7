#include "graph/placement_settings.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace af {
namespace {

bool FromEnvironment(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0);
}

std::atomic<bool>& Soft() {
  static std::atomic<bool> soft{FromEnvironment("ACTORFLOW_SOFT_PLACEMENT")};
  return soft;
}

std::atomic<bool>& Log() {
  static std::atomic<bool> log{FromEnvironment("ACTORFLOW_LOG_DEVICE_PLACEMENT")};
  return log;
}

}  // namespace

void SetSoftDevicePlacement(bool enabled) { Soft().store(enabled); }
bool SoftDevicePlacement() { return Soft().load(); }
void SetLogDevicePlacement(bool enabled) { Log().store(enabled); }
bool LogDevicePlacement() { return Log().load(); }

std::string DescribeDevicePlacement(const Graph& g) {
  std::string out;
  for (const Node* n : g.nodes()) {
    if (n == nullptr) continue;
    out += n->name() + " (" + n->type_string() + "): " + n->assigned_device_name() + "\n";
  }
  return out;
}

}  // namespace af
