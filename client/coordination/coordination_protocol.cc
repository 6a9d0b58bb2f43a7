#include "client/coordination/coordination_protocol.h"

#include <utility>

namespace af {

std::string CoordinationStats::ToString() const {
  std::string out = "steps " + std::to_string(steps) + ", gradients applied " +
                    std::to_string(gradients_applied) + " dropped " +
                    std::to_string(gradients_dropped) + " (" + std::to_string(steps_dropped) +
                    " steps), global step " + std::to_string(global_step);
  if (updates > 0 || replicas_to_aggregate > 0) {
    out += ", chief: " + std::to_string(updates) + " updates of " +
           std::to_string(replicas_to_aggregate) + " of " + std::to_string(total_num_replicas) +
           " replicas";
  }
  return out;
}

CoordinationStats CoordinationProtocol::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

void CoordinationProtocol::RecordStep(int64_t applied, int64_t dropped, int64_t global_step) {
  UpdateStats([&](CoordinationStats& s) {
    ++s.steps;
    s.gradients_applied += applied;
    s.gradients_dropped += dropped;
    if (dropped > 0) ++s.steps_dropped;
    if (global_step >= 0) s.global_step = global_step;
  });
}

Status CoordinationProtocol::RunStep(ClientSession& session,
                                     const ClientSession::FeedType& feeds,
                                     const std::vector<Output>& fetches,
                                     std::vector<Tensor>* outputs,
                                     const RunOptions& run_options) {
  ProtocolStepArgs args;
  AF_RETURN_IF_ERROR(BeforeStep(session, &args));
  ClientSession::FeedType all_feeds = feeds;
  for (const auto& [output, value] : args.feeds) {
    if (!all_feeds.emplace(output, value).second) {
      return errors::InvalidArgument("coordination protocol '", name(), "' feeds '",
                                     output.name(), "', which the program feeds too");
    }
  }
  std::vector<Output> all_fetches = fetches;
  all_fetches.insert(all_fetches.end(), args.fetches.begin(), args.fetches.end());
  std::vector<Tensor> values;
  AF_RETURN_IF_ERROR(
      session.Run(run_options, all_feeds, all_fetches, args.targets, &values, nullptr));
  std::vector<Tensor> own(values.begin() + static_cast<std::ptrdiff_t>(fetches.size()),
                          values.end());
  values.resize(fetches.size());
  if (outputs != nullptr) *outputs = std::move(values);
  return AfterStep(session, own);
}

Status ValidateReplicaContext(const std::string& protocol, const ReplicaContext& replica,
                              bool needs_global_step) {
  const std::string who = "coordination protocol '" + protocol + "'";
  if (replica.optimizer == nullptr) {
    return errors::InvalidArgument(who, ": ReplicaContext has no optimizer");
  }
  if (replica.num_workers < 1) {
    return errors::InvalidArgument(who, ": num_workers must be at least 1, not ",
                                   replica.num_workers);
  }
  if (replica.worker_index < 0 || replica.worker_index >= replica.num_workers) {
    return errors::InvalidArgument(who, ": worker_index ", replica.worker_index,
                                   " is outside 0..", replica.num_workers - 1);
  }
  if (needs_global_step &&
      (!replica.global_step.valid() || BaseType(replica.global_step.type()) != DT_INT64 ||
       !IsRefType(replica.global_step.type()))) {
    return errors::InvalidArgument(who, " needs the global step, an int64 variable "
                                   "(GetOrCreateGlobalStep)");
  }
  return Status::OK();
}

int64_t ScalarAsInt64(const Tensor& t) {
  if (!t.IsInitialized() || t.NumElements() != 1) return -1;
  if (t.dtype() == DT_INT32) return t.data<int32_t>()[0];
  if (t.dtype() == DT_INT64) return t.data<int64_t>()[0];
  return -1;
}

}  // namespace af
