// CoordinationProtocolHook: a coordination protocol driven by a
// MonitoredTrainingSession, so a training loop that survives dying
// processes also combines its gradients by `sync`, `backup:B`, `async` or
// `ssp:S` (or a researcher's protocol) without the loop body knowing:
//
//   auto protocol_hook = std::make_shared<CoordinationProtocolHook>(protocol);
//   options.hooks.push_back(protocol_hook);        // every worker
//   ... MonitoredTrainingSession::Create(root, options, &session);
//   session->Run({{x, batch}}, {loss}, {}, &out);   // the protocol's train op runs too
//
// Start runs after every session creation (again after a recovery: the
// protocol then restarts its background work and re-reads the global step),
// BeforeStep/AfterStep around each step, Stop at the end. The protocol must
// already be built (CoordinationProtocol::Build) when the hook begins.
#pragma once

#include <memory>

#include "client/coordination/coordination_protocol.h"
#include "client/training/session_run_hook.h"

namespace af {

class CoordinationProtocolHook : public SessionRunHook {
 public:
  explicit CoordinationProtocolHook(std::shared_ptr<CoordinationProtocol> protocol)
      : protocol_(std::move(protocol)) {}
  ~CoordinationProtocolHook() override;

  Status AfterCreateSession(ClientSession& session) override;
  Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(ClientSession& session) override;
  void BeforeRecreateSession(const Status& cause) override;

  CoordinationProtocol& protocol() const { return *protocol_; }

 private:
  std::shared_ptr<CoordinationProtocol> protocol_;
};

}  // namespace af
