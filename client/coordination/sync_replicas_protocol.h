// `sync` and `backup:B`: TensorFlow's SyncReplicasOptimizer semantics on
// gradient accumulator actors (graph: sync_replicas_graph.h).
//
// Each step a worker hands every gradient, tagged with its local step, to
// the accumulator beside the variable, then waits for a token. The chief's
// aggregation loop (chief_aggregation_loop.h) takes the mean of m =
// replicas_to_aggregate gradients from every accumulator, applies it with
// the wrapped optimizer, advances the global step and enqueues n =
// total_num_replicas tokens holding the new step; each worker's token is
// its next local step. A gradient computed at an older global step is
// dropped by its accumulator (stale), and so is one that finds the step's m
// already held (surplus), so exactly m gradients are averaged per step. The
// worker learns which of its gradients were kept from its own step
// (AccumulatorTryApplyGradient's output) and counts the rest as dropped.
//
// `sync` is m = n; `backup:B` is m = n - B (OSDI §4.4): the first m
// gradients of a step are applied and the B stragglers' dropped.
//
// Departures from TensorFlow: no initial tokens (TensorFlow's default
// lets every worker run a second step on the first global step; here the
// first step is synchronous too), and the surplus drop above (TensorFlow
// averages every gradient held when the chief's take arrives, which may be
// more than m).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/coordination/chief_aggregation_loop.h"
#include "client/coordination/coordination_protocol.h"
#include "client/coordination/protocol_factory.h"
#include "client/coordination/sync_replicas_graph.h"

namespace af {

class SyncReplicasProtocol : public CoordinationProtocol {
 public:
  // backup_workers B: m = n - B once n is known (Build).
  SyncReplicasProtocol(std::string name, int64_t backup_workers, const ProtocolOptions& options)
      : name_(std::move(name)), backup_workers_(backup_workers), options_(options) {}
  ~SyncReplicasProtocol() override;

  std::string name() const override { return name_; }
  // m = n - B (at least 1).
  int64_t GradientsPerGlobalStep(int num_workers) const override {
    return std::max<int64_t>(1, num_workers - backup_workers_);
  }
  Status Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
               const ReplicaContext& replica) override;
  // The chief sets the accumulators' global step and starts aggregating;
  // every worker reads the global step as its first local step.
  Status Start(ClientSession& session) override;
  Status BeforeStep(ClientSession& session, ProtocolStepArgs* args) override;
  Status AfterStep(ClientSession& session, const std::vector<Tensor>& values) override;
  Status Stop() override;

  int32_t replicas_to_aggregate() const { return m_; }
  int32_t total_num_replicas() const { return n_; }

 private:
  const std::string name_;
  const int64_t backup_workers_;
  const ProtocolOptions options_;
  std::optional<Scope> scope_;  // for the chief's aggregation session
  ReplicaContext replica_;
  SyncReplicasGraph graph_;
  int32_t m_ = 0, n_ = 0;
  int64_t local_step_ = -1;  // -1: not started
  std::unique_ptr<ChiefAggregationLoop> chief_;
};

}  // namespace af
