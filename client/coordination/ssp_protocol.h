// `ssp:S`, stale-synchronous parallel (Ho et al., NIPS 2013; beyond the
// TensorFlow papers): each worker applies its gradients directly, as in
// `async`, and then ticks a StalenessClock on the global step's ps task.
// The tick finishes the step only when the worker may start its next one —
// at most S steps ahead of the slowest active worker — so the step's Run
// is where a fast worker waits, as an actor-held request, not a thread.
// S = 0 runs the workers in lockstep (bulk-synchronous), a huge S is async.
//
// Elastic: a worker silent for ProtocolOptions::inactive_after_ms stops
// holding the others back (the clock logs it) and rejoins at the slowest
// active worker's clock when it ticks again. Nothing is dropped.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "client/coordination/coordination_protocol.h"
#include "client/coordination/protocol_factory.h"

namespace af {

class SspProtocol : public CoordinationProtocol {
 public:
  SspProtocol(std::string name, int64_t staleness, const ProtocolOptions& options)
      : name_(std::move(name)), staleness_(staleness), options_(options) {}

  std::string name() const override { return name_; }
  Status Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
               const ReplicaContext& replica) override;
  Status BeforeStep(ClientSession& session, ProtocolStepArgs* args) override;
  Status AfterStep(ClientSession& session, const std::vector<Tensor>& values) override;

  // The clock this worker last ticked to: the step it may run now.
  int64_t clock() const { return clock_.load(); }

 private:
  const std::string name_;
  const int64_t staleness_;
  const ProtocolOptions options_;
  Output step_;  // the global step after this worker's update
  Output tick_;  // the worker's clock once it may go on
  int64_t num_gradients_ = 0;
  std::atomic<int64_t> clock_{0};
};

}  // namespace af
