// SummarySaverHook: every N global steps (or S seconds) fetches a summary
// with the step and writes it to an event file, as tf.train.SummarySaverHook.
// The summary is a given summary op, scalars the hook turns into
// ScalarSummary ops itself, or both (merged).
//
//   SummarySaverHookOptions o;
//   o.save_steps = 10;
//   o.output_dir = "logs/run1";
//   o.scalars = {{"loss", loss}};
//   hooks.push_back(std::make_shared<SummarySaverHook>(o));
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/summary_writer.h"
#include "client/training/session_run_hook.h"
#include "client/training/step_timer.h"

namespace af {

struct SummarySaverHookOptions {
  // One of the two (steps win when both are set).
  int64_t save_steps = 0;
  double save_secs = 0;
  // Where the events go: `writer` when given (so that hooks writing to one
  // directory share one file, as TensorBoard expects), else a writer the
  // hook opens in `output_dir`.
  std::shared_ptr<SummaryWriter> writer;
  std::string output_dir;
  // A serialized tensorflow.Summary (a ScalarSummary, a MergeSummary ...).
  Output summary_op;
  // (tag, float scalar) pairs written as simple values.
  std::vector<std::pair<std::string, Output>> scalars;
};

class SummarySaverHook : public SessionRunHook {
 public:
  explicit SummarySaverHook(SummarySaverHookOptions options);

  Status Begin(const Scope& scope) override;
  Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(ClientSession& session) override;

 private:
  SummarySaverHookOptions options_;
  StepTimer timer_;
  Output global_step_;
  Output summary_;          // what is fetched: the merged summary
  int64_t next_step_ = -1;  // guessed from the last fetched global step
  bool requested_ = false;  // this step fetches the summary
};

}  // namespace af
