// The stall inspector's reports of the sessions made with Options(), kept
// for the test whichever thread reports them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/session.h"

namespace af::testing {

class StallLog {
 public:
  // Session options that report waits longer than `after_ms` here.
  SessionOptions Options(int64_t after_ms) const {
    SessionOptions options;
    options.stall_warning_ms = after_ms;
    options.stall_log = [shared = shared_](const std::string& line) {
      std::lock_guard<std::mutex> lock(shared->mu);
      shared->lines.push_back(line);
    };
    return options;
  }
  // The reports so far, in order.
  std::vector<std::string> Lines() const {
    std::lock_guard<std::mutex> lock(shared_->mu);
    return shared_->lines;
  }

 private:
  struct Shared {
    std::mutex mu;
    std::vector<std::string> lines;
  };
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
};

}  // namespace af::testing
