// StepCounterHook: every N global steps, logs the global steps per second
// (and writes it as the scalar "global_step/sec" when given a writer), as
// tf.train.StepCounterHook. The rate counts the global step, so with
// several workers it is the job's rate, and the time a recovery cost shows
// as a dip.
#pragma once

#include <cstdint>
#include <memory>

#include "client/summary_writer.h"
#include "client/training/session_run_hook.h"
#include "client/training/step_timer.h"
#include "client/training/training_log.h"

namespace af {

struct StepCounterHookOptions {
  int64_t every_n_steps = 100;
  double every_n_secs = 0;  // used when every_n_steps is 0
  std::shared_ptr<SummaryWriter> writer;  // optional
  TrainingLog log;
};

class StepCounterHook : public SessionRunHook {
 public:
  explicit StepCounterHook(StepCounterHookOptions options);

  Status Begin(const Scope& scope) override;
  Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

  // The last rate measured (0 before the second trigger).
  double last_rate() const { return last_rate_; }

 private:
  StepCounterHookOptions options_;
  StepTimer timer_;
  Output global_step_;
  double last_rate_ = 0;
};

}  // namespace af
