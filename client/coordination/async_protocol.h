// `async`: every worker applies its gradients to the shared variables as
// soon as it has them, with the plain optimizer, and advances the global
// step (whitepaper §7, Fig. 7's top). Nothing waits and nothing is dropped;
// a lost worker costs the others nothing, and a restarted one simply goes
// on from the current variables.
#pragma once

#include <string>
#include <vector>

#include "client/coordination/coordination_protocol.h"

namespace af {

class AsyncProtocol : public CoordinationProtocol {
 public:
  std::string name() const override { return "async"; }
  Status Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
               const ReplicaContext& replica) override;
  Status BeforeStep(ClientSession& session, ProtocolStepArgs* args) override;
  Status AfterStep(ClientSession& session, const std::vector<Tensor>& values) override;

 private:
  Operation train_;
  Output step_;  // the global step after this worker's update (invalid without one)
  int64_t num_gradients_ = 0;
};

// The gradients of `grads_and_vars` that exist (a variable the loss does
// not reach has none).
int64_t CountGradients(const std::vector<GradAndVar>& grads_and_vars);

}  // namespace af
