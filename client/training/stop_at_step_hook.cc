#include "client/training/stop_at_step_hook.h"

#include "client/training/global_step.h"

namespace af {

std::shared_ptr<StopAtStepHook> StopAtStepHook::AtStep(int64_t last_step) {
  return std::shared_ptr<StopAtStepHook>(new StopAtStepHook(std::nullopt, last_step));
}

std::shared_ptr<StopAtStepHook> StopAtStepHook::ForSteps(int64_t num_steps) {
  return std::shared_ptr<StopAtStepHook>(new StopAtStepHook(num_steps, std::nullopt));
}

Status StopAtStepHook::Begin(const Scope& scope) {
  if (num_steps_ && *num_steps_ < 0)
    return errors::InvalidArgument("StopAtStepHook: num_steps must not be negative, got ",
                                   *num_steps_);
  return FindGlobalStep(scope, "StopAtStepHook", &global_step_);
}

Status StopAtStepHook::AfterCreateSession(ClientSession& session) {
  if (last_step_) return Status::OK();
  int64_t step = 0;
  AF_RETURN_IF_ERROR(ReadGlobalStep(session, global_step_, &step));
  last_step_ = step + *num_steps_;
  return Status::OK();
}

Status StopAtStepHook::BeforeRun(SessionRunContext&, SessionRunArgs* args) {
  args->fetches.push_back(global_step_);
  return Status::OK();
}

Status StopAtStepHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  // The fetched value may have been read before the step's own increment;
  // one step past it is the best guess, and only a guess at or past the
  // goal costs a read of the real value.
  if (GlobalStepValue(values.results[0]) + 1 < *last_step_) return Status::OK();
  int64_t step = 0;
  AF_RETURN_IF_ERROR(ReadGlobalStep(context.session(), global_step_, &step));
  if (step >= *last_step_) context.RequestStop();
  return Status::OK();
}

}  // namespace af
