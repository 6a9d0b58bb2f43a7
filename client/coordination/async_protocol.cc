#include "client/coordination/async_protocol.h"

namespace af {

int64_t CountGradients(const std::vector<GradAndVar>& grads_and_vars) {
  int64_t n = 0;
  for (const auto& [grad, var] : grads_and_vars) n += grad.valid() ? 1 : 0;
  return n;
}

Status AsyncProtocol::Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                            const ReplicaContext& replica) {
  AF_RETURN_IF_ERROR(ValidateReplicaContext(name(), replica, /*needs_global_step=*/false));
  num_gradients_ = CountGradients(grads_and_vars);
  AF_RETURN_IF_ERROR(replica.optimizer->ApplyGradients(scope, grads_and_vars,
                                                       replica.global_step, &train_));
  // With a global step the train op is its increment, whose output is the
  // step this update made.
  if (replica.global_step.valid()) step_ = train_.output(0);
  return scope.status();
}

Status AsyncProtocol::BeforeStep(ClientSession&, ProtocolStepArgs* args) {
  if (!train_.valid()) return errors::FailedPrecondition("coordination protocol 'async': Build first");
  if (step_.valid()) {
    args->fetches.push_back(step_);
  } else {
    args->targets.push_back(train_);
  }
  return Status::OK();
}

Status AsyncProtocol::AfterStep(ClientSession&, const std::vector<Tensor>& values) {
  RecordStep(num_gradients_, 0, values.empty() ? -1 : ScalarAsInt64(values[0]));
  return Status::OK();
}

}  // namespace af
