#include "client/training/summary_saver_hook.h"

#include "client/standard_ops.h"
#include "client/training/global_step.h"

namespace af {

SummarySaverHook::SummarySaverHook(SummarySaverHookOptions options)
    : options_(std::move(options)),
      timer_(options_.save_steps > 0 ? 0.0 : options_.save_secs, options_.save_steps) {}

Status SummarySaverHook::Begin(const Scope& scope) {
  if (!options_.summary_op.valid() && options_.scalars.empty())
    return errors::InvalidArgument("SummarySaverHook: give a summary_op or scalars");
  if (!timer_.enabled())
    return errors::InvalidArgument("SummarySaverHook: save_steps or save_secs must be positive");
  if (!options_.writer) {
    if (options_.output_dir.empty())
      return errors::InvalidArgument("SummarySaverHook: give a writer or an output_dir");
    std::unique_ptr<SummaryWriter> writer;
    AF_RETURN_IF_ERROR(SummaryWriter::Create(options_.output_dir, &writer));
    options_.writer = std::move(writer);
  }
  AF_RETURN_IF_ERROR(FindGlobalStep(scope, "SummarySaverHook", &global_step_));
  std::vector<Output> parts;
  if (options_.summary_op.valid()) parts.push_back(options_.summary_op);
  const Scope s = scope.NewSubScope("summary_saver_hook");
  for (const auto& [tag, value] : options_.scalars) {
    parts.push_back(ops::ScalarSummary(s, Input::Initializer(tag), value));
  }
  summary_ = parts.size() == 1 ? parts[0] : Output(ops::MergeSummary(s, InputList(parts)));
  return scope.status();
}

Status SummarySaverHook::BeforeRun(SessionRunContext&, SessionRunArgs* args) {
  requested_ = next_step_ < 0 || timer_.ShouldTrigger(next_step_);
  args->fetches.push_back(global_step_);
  if (requested_) args->fetches.push_back(summary_);
  return Status::OK();
}

Status SummarySaverHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  const int64_t step = GlobalStepValue(values.results[0]);
  next_step_ = step + 1;
  if (!requested_) return Status::OK();
  timer_.Update(step);
  return options_.writer->AddSummary(values.results[1].scalar<std::string>(), step);
}

Status SummarySaverHook::End(ClientSession&) { return options_.writer->Flush(); }

}  // namespace af
