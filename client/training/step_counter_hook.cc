#include "client/training/step_counter_hook.h"

#include <cstdio>

#include "client/training/global_step.h"

namespace af {

StepCounterHook::StepCounterHook(StepCounterHookOptions options)
    : options_(std::move(options)),
      timer_(options_.every_n_steps > 0 ? 0.0 : options_.every_n_secs, options_.every_n_steps) {
  options_.log = OrStderr(std::move(options_.log));
}

Status StepCounterHook::Begin(const Scope& scope) {
  return FindGlobalStep(scope, "StepCounterHook", &global_step_);
}

Status StepCounterHook::BeforeRun(SessionRunContext&, SessionRunArgs* args) {
  args->fetches.push_back(global_step_);
  return Status::OK();
}

Status StepCounterHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  const int64_t step = GlobalStepValue(values.results[0]);
  if (!timer_.ShouldTrigger(step)) return Status::OK();
  const auto [seconds, steps] = timer_.Update(step);
  // A restore moves the step back: no rate across it.
  if (seconds <= 0 || steps <= 0) return Status::OK();
  last_rate_ = static_cast<double>(steps) / seconds;
  char line[96];
  std::snprintf(line, sizeof line, "global_step/sec: %.4g (global step %lld)", last_rate_,
                static_cast<long long>(step));
  options_.log(line);
  if (options_.writer)
    return options_.writer->AddScalar("global_step/sec", static_cast<float>(last_rate_), step);
  return Status::OK();
}

}  // namespace af
