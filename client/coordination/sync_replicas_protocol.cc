#include "client/coordination/sync_replicas_protocol.h"

#include <algorithm>

#include "client/coordination/async_protocol.h"

namespace af {

SyncReplicasProtocol::~SyncReplicasProtocol() { (void)Stop(); }

Status SyncReplicasProtocol::Build(const Scope& scope,
                                   const std::vector<GradAndVar>& grads_and_vars,
                                   const ReplicaContext& replica) {
  AF_RETURN_IF_ERROR(ValidateReplicaContext(name_, replica, /*needs_global_step=*/true));
  if (backup_workers_ >= replica.num_workers) {
    return errors::InvalidArgument("coordination protocol '", name_, "' needs more than ",
                                   backup_workers_, " workers; the training has ",
                                   replica.num_workers);
  }
  if (CountGradients(grads_and_vars) == 0) {
    return errors::InvalidArgument("coordination protocol '", name_,
                                   "': no variable gets a gradient from the loss");
  }
  n_ = replica.num_workers;
  m_ = static_cast<int32_t>(n_ - backup_workers_);
  replica_ = replica;
  scope_ = scope;
  AF_RETURN_IF_ERROR(BuildSyncReplicasGraph(scope, grads_and_vars, replica, m_, options_, &graph_));
  if (replica.is_chief) {
    chief_ = std::make_unique<ChiefAggregationLoop>(
        name_, graph_, options_, [this](const ChiefAggregationLoop::Progress& p) {
          UpdateStats([&](CoordinationStats& s) {
            s.updates = p.updates;
            s.replicas_to_aggregate = p.replicas_to_aggregate;
            s.total_num_replicas = p.total_num_replicas;
          });
        });
  }
  return Status::OK();
}

Status SyncReplicasProtocol::Start(ClientSession& session) {
  if (!scope_) return errors::FailedPrecondition("coordination protocol '", name_, "': Build first");
  AF_RETURN_IF_ERROR(Stop());
  const std::string who = "coordination protocol '" + name_ + "'";
  if (chief_) {
    // Gradients of the restored (or initial) global step are the fresh ones.
    Status s = session.Run({}, {}, {graph_.chief_init}, nullptr);
    if (!s.ok()) return s.WithContext(who + ": setting the accumulators' global step");
  }
  std::vector<Tensor> step;
  Status s = session.Run({replica_.global_step}, &step);
  if (!s.ok()) return s.WithContext(who + ": reading the global step");
  // After a recovery the restored global step is below the step the
  // accumulators on surviving ps tasks count, until the chief's chief_init
  // sets them back; a worker that starts between the two would label its
  // first gradients with the restored step, see them dropped as stale, and
  // wait for a token no aggregation can earn. Its label from before the
  // failure is accepted at both steps, and its gradients were computed on
  // the restored variables, so they are fresh: keep the larger label.
  local_step_ = std::max(local_step_, ScalarAsInt64(step[0]));
  UpdateStats([&](CoordinationStats& st) { st.global_step = local_step_; });
  if (chief_) {
    AF_RETURN_IF_ERROR(
        chief_->Start(*scope_, replica_.session_options, m_, n_, /*resumed=*/local_step_ > 0));
  }
  return Status::OK();
}

Status SyncReplicasProtocol::BeforeStep(ClientSession&, ProtocolStepArgs* args) {
  if (local_step_ < 0) {
    return errors::FailedPrecondition("coordination protocol '", name_, "': Start first");
  }
  args->feeds.emplace(graph_.local_step, Input::Initializer(local_step_));
  args->targets.push_back(graph_.mark_present);
  args->fetches.insert(args->fetches.end(), graph_.applied.begin(), graph_.applied.end());
  args->fetches.push_back(graph_.token);
  return Status::OK();
}

Status SyncReplicasProtocol::AfterStep(ClientSession&, const std::vector<Tensor>& values) {
  if (values.size() != graph_.applied.size() + 1) {
    return errors::Internal("coordination protocol '", name_, "': expected ",
                            graph_.applied.size() + 1, " values, got ", values.size());
  }
  int64_t kept = 0;
  for (size_t i = 0; i < graph_.applied.size(); ++i) kept += values[i].scalar<bool>() ? 1 : 0;
  local_step_ = ScalarAsInt64(values.back());
  RecordStep(kept, static_cast<int64_t>(graph_.applied.size()) - kept, local_step_);
  return Status::OK();
}

Status SyncReplicasProtocol::Stop() {
  if (chief_) chief_->Stop();
  return Status::OK();
}

}  // namespace af
