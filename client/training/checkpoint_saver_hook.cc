#include "client/training/checkpoint_saver_hook.h"

#include "client/training/global_step.h"

namespace af {

CheckpointSaverHook::CheckpointSaverHook(CheckpointSaverHookOptions options,
                                         std::shared_ptr<const Scaffold> scaffold)
    : options_(std::move(options)),
      scaffold_(std::move(scaffold)),
      timer_(options_.save_steps > 0 ? 0.0 : options_.save_secs, options_.save_steps) {
  options_.log = OrStderr(std::move(options_.log));
}

Status CheckpointSaverHook::Begin(const Scope& scope) {
  if (options_.checkpoint_dir.empty())
    return errors::InvalidArgument("CheckpointSaverHook: checkpoint_dir is empty");
  AF_RETURN_IF_ERROR(FindGlobalStep(scope, "CheckpointSaverHook", &global_step_));
  if (!options_.saver && !scaffold_) {
    SaverOptions sharded;
    sharded.sharded = true;
    own_saver_ = std::make_unique<Saver>(scope, sharded);
    AF_RETURN_IF_ERROR(own_saver_->status());
  }
  return Status::OK();
}

Status CheckpointSaverHook::AfterCreateSession(ClientSession& session) {
  saver_ = options_.saver ? options_.saver.get()
           : own_saver_   ? own_saver_.get()
                          : scaffold_->saver.get();
  if (saver_ == nullptr)
    return errors::FailedPrecondition("CheckpointSaverHook: the graph has no variables to save");
  // A checkpoint right away, so that a failure before the first periodic
  // save has something to restore; not again for a step already saved (a
  // session re-created after a restore).
  int64_t step = 0;
  AF_RETURN_IF_ERROR(ReadGlobalStep(session, global_step_, &step));
  const std::string path =
      options_.checkpoint_dir + "/" + options_.checkpoint_basename + "-" + std::to_string(step);
  if (LatestCheckpoint(options_.checkpoint_dir) == path) {
    timer_.Update(step);
    return Status::OK();
  }
  return Save(session, step);
}

Status CheckpointSaverHook::BeforeRun(SessionRunContext&, SessionRunArgs* args) {
  args->fetches.push_back(global_step_);
  return Status::OK();
}

Status CheckpointSaverHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  // The fetched step may predate the step's own increment: guess one more,
  // and read the real value only when a save is due.
  if (!timer_.ShouldTrigger(GlobalStepValue(values.results[0]) + 1)) return Status::OK();
  int64_t step = 0;
  AF_RETURN_IF_ERROR(ReadGlobalStep(context.session(), global_step_, &step));
  if (!timer_.ShouldTrigger(step)) return Status::OK();
  return Save(context.session(), step);
}

Status CheckpointSaverHook::End(ClientSession& session) {
  int64_t step = 0;
  AF_RETURN_IF_ERROR(ReadGlobalStep(session, global_step_, &step));
  if (timer_.last_triggered_step() == step) return Status::OK();
  return Save(session, step);
}

Status CheckpointSaverHook::Save(ClientSession& session, int64_t global_step) {
  std::string path;
  AF_RETURN_IF_ERROR(saver_->Save(
      session, options_.checkpoint_dir + "/" + options_.checkpoint_basename, global_step, &path));
  timer_.Update(global_step);
  last_checkpoint_ = path;
  options_.log("saved checkpoint " + path + " at global step " + std::to_string(global_step));
  return Status::OK();
}

}  // namespace af
