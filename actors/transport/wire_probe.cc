#include "actors/transport/wire_probe.h"

#include <chrono>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/actor_system_holder.h"
#include "actors/spawn_without_arguments.h"
#include "actors/interfaces.h"
#include "actors/transport/peer_auth.h"
#include "actors/transport/wire_handshake.h"

namespace af::actors {
namespace {

// A guarded server answers at once; this only bounds a hung one.
constexpr auto kAnswerTimeout = std::chrono::seconds(10);
// Ids no real master uses, so that nothing the probe names exists.
constexpr int64_t kSessionId = 0x5eed;
constexpr int64_t kStepId = 0x5eed;

template <class Answer, class Extract, class... Ts>
ProbeAnswer Ask(caf::scoped_actor& self, const worker_actor& worker, std::string what,
                Extract extract, Ts&&... xs) {
  ProbeAnswer answer{std::move(what), Status::OK()};
  self->request(worker, kAnswerTimeout, std::forward<Ts>(xs)...)
      .receive([&](Answer& a) { answer.status = extract(a); },
               [&](caf::error& err) { answer.status = FromCafError(self->system(), err, ""); });
  return answer;
}

Status Obeyed() { return Status::OK(); }

Status Connect(caf::actor_system& system, const std::string& host, uint16_t port,
               worker_actor* worker, const std::string& secret = "") {
  // With the version exchange: the probe tests the guards behind it.
  return ConnectToWorker(system, host, port,
                         std::chrono::steady_clock::now() + kAnswerTimeout,
                         "probe: the server at " + host + ":" + std::to_string(port), worker,
                         secret);
}

// The session requests a master sends, each naming `incarnation`.
void AskSessionRequests(caf::scoped_actor& self, const worker_actor& worker,
                        uint64_t incarnation, std::vector<ProbeAnswer>* answers) {
  auto status_of = [](auto& response) { return wire::FromWire(response.status); };
  auto wire_status = [](wire::WireStatus& s) { return wire::FromWire(s); };
  answers->push_back(Ask<wire::WireStatus>(
      self, worker, "OpenSession", wire_status, open_sess_atom::value,
      OpenSession{kSessionId, incarnation, caf::actor{}, {}, 0}));
  answers->push_back(Ask<wire::RegisterGraphResponse>(
      self, worker, "RegisterGraph", status_of, reg_graph_atom::value,
      wire::RegisterGraphRequest{kSessionId, incarnation,
                                 "/job:worker/replica:0/task:0/device:CPU:0", ""}));
  answers->push_back(Ask<wire::RunGraphResponse>(
      self, worker, "RunGraph", status_of, run_graph_atom::value,
      wire::RunGraphRequest{kSessionId, incarnation, kStepId, {}, false}));
}

}  // namespace

Status ProbeWithoutHandshake(const std::string& host, uint16_t port,
                             std::vector<ProbeAnswer>* answers, const std::string& secret) {
  auto system = AcquireActorSystem();
  worker_actor worker;
  AF_RETURN_IF_ERROR(Connect(*system, host, port, &worker, secret));
  caf::scoped_actor self{*system};
  // Pushes first: they have no answer, and the server logs only the first
  // refusal of a node.
  const wire::TensorPush push{kStepId, "probe;push", Tensor::Scalar<float>(1), false};
  self->send(worker, push_atom::value, push);
  caf::anon_send(worker, push_atom::value, push);
  auto wire_status = [](wire::WireStatus& s) { return wire::FromWire(s); };
  answers->push_back(Ask<std::vector<wire::DeviceInfo>>(
      self, worker, "ListDevices", [](auto&) { return Obeyed(); }, list_dev_atom::value));
  answers->push_back(Ask<uint64_t>(
      self, worker, "Heartbeat", [](auto&) { return Obeyed(); }, heartbeat_atom::value,
      int64_t{0}));
  AskSessionRequests(self, worker, 0, answers);
  answers->push_back(Ask<bool>(
      self, worker, "TensorChunk", [](auto&) { return Obeyed(); }, chunk_atom::value,
      wire::TensorChunk{kStepId, "probe;chunk", 0, 4, Tensor::Scalar<float>(1), false,
                        DT_INVALID, {}}));
  answers->push_back(Ask<wire::WireStatus>(self, worker, "ResetContainers", wire_status,
                                           reset_atom::value, std::vector<std::string>{}));
  answers->push_back(Ask<std::vector<ContainerListing>>(
      self, worker, "ListContainers", [](auto&) { return Obeyed(); }, list_cont_atom::value));
  ProbeAnswer open_master{"OpenMasterSession", Status::OK()};
  self->request(worker, kAnswerTimeout, open_master_atom::value, wire::MasterSessionRequest{})
      .receive([&](wire::WireStatus& s, caf::actor&,
                   std::vector<wire::DeviceInfo>&) { open_master.status = wire::FromWire(s); },
               [&](caf::error& err) { open_master.status = FromCafError(*system, err, ""); });
  answers->push_back(std::move(open_master));
  // Membership: a stranger may neither join nor rewrite the member list
  // (one-way: a refusal shows only as nothing changing).
  caf::anon_send(worker, cluster_atom::value, std::vector<std::string>{"/job:probe/task:0"},
                 std::vector<std::string>{"127.0.0.1:1"});
  ProbeAnswer join{"JoinCluster", Status::OK()};
  self->request(worker, kAnswerTimeout, join_atom::value, std::string("probe"),
                std::string("127.0.0.1:1"))
      .receive([&](wire::WireStatus& s, std::vector<std::string>&, std::vector<std::string>&,
                   int32_t) { join.status = wire::FromWire(s); },
               [&](caf::error& err) { join.status = FromCafError(*system, err, ""); });
  answers->push_back(std::move(join));
  return Status::OK();
}

Status ProbeIncarnation(const std::string& host, uint16_t port, uint64_t incarnation,
                        std::vector<ProbeAnswer>* answers) {
  auto system = AcquireActorSystem();
  worker_actor worker;
  AF_RETURN_IF_ERROR(Connect(*system, host, port, &worker));
  caf::scoped_actor self{*system};
  AskSessionRequests(self, worker, incarnation, answers);
  return Status::OK();
}

Status ProbeWithoutVersionExchange(const std::string& host, uint16_t port,
                                   std::vector<ProbeAnswer>* answers) {
  auto system = AcquireActorSystem();
  auto remote = system->middleman().remote_actor<worker_actor>(host, port);
  if (!remote) {
    return errors::Unavailable("probe: cannot reach ", host, ":", port, ": ",
                               system->render(remote.error()));
  }
  caf::scoped_actor self{*system};
  answers->push_back(Ask<std::vector<wire::DeviceInfo>>(
      self, *remote, "ListDevices", [](auto&) { return Obeyed(); }, list_dev_atom::value));
  auto wire_status = [](wire::WireStatus& s) { return wire::FromWire(s); };
  answers->push_back(Ask<wire::WireStatus>(self, *remote, "OpenSession", wire_status,
                                           open_sess_atom::value,
                                           OpenSession{kSessionId, 0, caf::actor{}, {}, 0}));
  return Status::OK();
}

Status ConnectToServerOlderThanVersions() {
  caf::actor_system_config config;
  config.load<caf::io::middleman>();
  config.set("scheduler.max-threads", 1);
  caf::actor_system old_system{config};
  caf::actor old_worker = SpawnWithoutArguments<caf::event_based_actor>(
      old_system,
      []() -> caf::behavior { return {[](list_dev_atom) { return std::vector<std::string>{}; }}; });
  auto port = old_system.middleman().publish(old_worker, 0, "127.0.0.1");
  Status result;
  if (!port) {
    result = errors::Internal("probe: cannot publish: ", old_system.render(port.error()));
  } else {
    worker_actor worker;
    result = ConnectToWorker(*AcquireActorSystem(), "127.0.0.1", *port,
                             std::chrono::steady_clock::now() + kAnswerTimeout,
                             "the server at 127.0.0.1:" + std::to_string(*port), &worker);
    old_system.middleman().unpublish(old_worker, *port);
  }
  caf::anon_send_exit(old_worker, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace af::actors
