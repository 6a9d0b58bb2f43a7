// CheckpointSaverHook: saves a checkpoint every N global steps or every S
// seconds, when a session is created and at the end, as
// tf.train.CheckpointSaverHook. These checkpoints are what a training
// session restores after a ps task lost its variables, so the interval
// bounds the work a failure costs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/saver.h"
#include "client/training/scaffold.h"
#include "client/training/session_run_hook.h"
#include "client/training/step_timer.h"
#include "client/training/training_log.h"

namespace af {

struct CheckpointSaverHookOptions {
  std::string checkpoint_dir;
  // One of the two (steps win when both are set).
  double save_secs = 0;
  int64_t save_steps = 0;
  // Checkpoints are CHECKPOINT_DIR/BASENAME-<global step>.
  std::string checkpoint_basename = "model.ckpt";
  // The saver to use; null: the scaffold's (given to the constructor),
  // else a sharded Saver over the global variables made in Begin.
  std::shared_ptr<Saver> saver;
  TrainingLog log;
};

class CheckpointSaverHook : public SessionRunHook {
 public:
  // `scaffold` (may be null) supplies the saver when the options give none;
  // it is read when a session is created, after the training session
  // finalized it.
  explicit CheckpointSaverHook(CheckpointSaverHookOptions options,
                               std::shared_ptr<const Scaffold> scaffold = nullptr);

  Status Begin(const Scope& scope) override;
  Status AfterCreateSession(ClientSession& session) override;
  Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(ClientSession& session) override;

  // The newest checkpoint this hook wrote ("" before the first).
  const std::string& last_checkpoint() const { return last_checkpoint_; }

 private:
  Status Save(ClientSession& session, int64_t global_step);

  CheckpointSaverHookOptions options_;
  std::shared_ptr<const Scaffold> scaffold_;
  Saver* saver_ = nullptr;  // options_.saver, the scaffold's, or own_saver_
  std::unique_ptr<Saver> own_saver_;
  StepTimer timer_;
  Output global_step_;
  std::string last_checkpoint_;
};

}  // namespace af
