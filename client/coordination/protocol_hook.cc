#include "client/coordination/protocol_hook.h"

namespace af {

CoordinationProtocolHook::~CoordinationProtocolHook() { (void)protocol_->Stop(); }

Status CoordinationProtocolHook::AfterCreateSession(ClientSession& session) {
  return protocol_->Start(session);
}

Status CoordinationProtocolHook::BeforeRun(SessionRunContext& context, SessionRunArgs* args) {
  ProtocolStepArgs step;
  AF_RETURN_IF_ERROR(protocol_->BeforeStep(context.session(), &step));
  // The protocol's fetches follow anything the hook's args already hold, so
  // AfterRun hands them back in BeforeStep's order.
  for (auto& feed : step.feeds) args->feeds.insert_or_assign(feed.first, std::move(feed.second));
  args->fetches.insert(args->fetches.end(), step.fetches.begin(), step.fetches.end());
  args->targets.insert(args->targets.end(), step.targets.begin(), step.targets.end());
  return Status::OK();
}

Status CoordinationProtocolHook::AfterRun(SessionRunContext& context,
                                          const SessionRunValues& values) {
  return protocol_->AfterStep(context.session(), values.results);
}

Status CoordinationProtocolHook::End(ClientSession&) { return protocol_->Stop(); }

// A chief's aggregation loop left running through a recovery would apply
// the gradients left over from before the failure to the variables just
// restored, and advance the global step before Start re-aligns the
// accumulators to it.
void CoordinationProtocolHook::BeforeRecreateSession(const Status&) { (void)protocol_->Stop(); }

}  // namespace af
