#include "core/step_resources.h"

#include <atomic>
#include <cstdint>

namespace af {

std::string StepResources::UniqueName(std::string_view prefix) {
  static std::atomic<uint64_t> next{0};
  std::string name(prefix);
  name += '/';
  name += std::to_string(next.fetch_add(1, std::memory_order_relaxed));
  return name;
}

}  // namespace af
