// StopAtStepHook: asks the training loop to stop once the global step
// reaches a given value, as tf.train.StopAtStepHook. The global step is
// shared by every worker and survives a restore, so "stop at step N" holds
// across recoveries and restarts of the program (a restored run stops at N,
// not N steps after the restore).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "client/training/session_run_hook.h"

namespace af {

class StopAtStepHook : public SessionRunHook {
 public:
  // Stops when the global step reaches `last_step`.
  static std::shared_ptr<StopAtStepHook> AtStep(int64_t last_step);
  // Stops `num_steps` steps after the global step found when the first
  // session was created (a recovery does not move the goal).
  static std::shared_ptr<StopAtStepHook> ForSteps(int64_t num_steps);

  Status Begin(const Scope& scope) override;
  Status AfterCreateSession(ClientSession& session) override;
  Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

  // The goal, once known.
  std::optional<int64_t> last_step() const { return last_step_; }

 private:
  StopAtStepHook(std::optional<int64_t> num_steps, std::optional<int64_t> last_step)
      : num_steps_(num_steps), last_step_(last_step) {}

  std::optional<int64_t> num_steps_;
  std::optional<int64_t> last_step_;
  Output global_step_;
};

}  // namespace af
