#include "client/coordination/ssp_protocol.h"

#include "client/coordination/async_protocol.h"
#include "client/coordination/anchored_scope.h"
#include "client/standard_ops.h"

namespace af {

Status SspProtocol::Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                          const ReplicaContext& replica) {
  AF_RETURN_IF_ERROR(ValidateReplicaContext(name_, replica, /*needs_global_step=*/true));
  num_gradients_ = CountGradients(grads_and_vars);
  Operation update;
  AF_RETURN_IF_ERROR(
      replica.optimizer->ApplyGradients(scope, grads_and_vars, replica.global_step, &update));
  step_ = update.output(0);
  // The clock lives with the global step: one ps task every worker reaches.
  const Scope s = scope.NewSubScope("ssp").ColocateWith(replica.global_step.op());
  auto clock = ops::StalenessClock(
      AnchoredTo(s.WithOpName("clock"), replica.global_step), replica.num_workers, staleness_,
      ops::StalenessClock::InactiveAfterMs(options_.inactive_after_ms)
          .SharedName(replica.shared_name + "/staleness_clock"));
  // The tick runs once this worker's update is in: it stands for a
  // finished step.
  tick_ = ops::StalenessClockTick(s.WithOpName("tick").WithControlDependencies({update}), clock,
                                  static_cast<int32_t>(replica.worker_index),
                                  ops::StalenessClockTick::TimeoutMs(options_.tick_timeout_ms));
  return scope.status();
}

Status SspProtocol::BeforeStep(ClientSession&, ProtocolStepArgs* args) {
  if (!tick_.valid()) return errors::FailedPrecondition("coordination protocol '", name_, "': Build first");
  args->fetches.push_back(step_);
  args->fetches.push_back(tick_);
  return Status::OK();
}

Status SspProtocol::AfterStep(ClientSession&, const std::vector<Tensor>& values) {
  if (values.size() != 2) return errors::Internal("coordination protocol '", name_, "': expected 2 values");
  clock_.store(ScalarAsInt64(values[1]));
  RecordStep(num_gradients_, 0, ScalarAsInt64(values[0]));
  return Status::OK();
}

}  // namespace af
