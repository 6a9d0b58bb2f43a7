#include "actors/worker/worker_handlers.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/system_messages.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/health/master_watch.h"
#include "actors/transport/cluster_tls.h"
#include "actors/transport/incoming_tensors.h"
#include "actors/worker/push_outbox.h"
#include "actors/transport/wire_handshake.h"
#include "core/logging.h"
#include "core/metrics/session_counters.h"
#include "core/server_limits.h"

namespace af::actors {

namespace {
// A dial to a peer server at OpenSession (actors/worker/peer_connections.h).
constexpr auto kPeerDialTimeout = std::chrono::seconds(10);
// Resetting or listing containers is quick local work; this only bounds a
// container actor that stopped answering.
constexpr auto kContainerTimeout = std::chrono::seconds(30);

// ACTORFLOW_PUSH_BATCHING=off sends every small tensor on its own, for
// measuring what the outboxes save (bench_transfer).
bool PushBatchingEnabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("ACTORFLOW_PUSH_BATCHING");
    return value == nullptr || std::string_view(value) != "off";
  }();
  return enabled;
}

// Tells the direct step path about a session (actors/worker/direct_steps.h):
// its replies go to the data plane of the master's process, and its steps
// run in this actor when something here must watch them.
void OpenDirectSession(WorkerPointer self, const OpenSession& req, const WorkerSession& session) {
  const WorkerState& st = self->state;
  std::string reply_address;
  for (const PeerWorker& peer : req.peers) {
    if (req.master && peer.worker && peer.worker.node() == req.master.node()) {
      reply_address = peer.data_address;
    }
  }
  const bool in_worker = st.faults != nullptr || session.memory_budget != nullptr ||
                         st.max_step.count() > 0;
  st.direct->OpenSession(req.session_id, req.master, session.router, std::move(reply_address),
                         in_worker);
}

}  // namespace

// A request meant for an earlier run of this task (its master has not yet
// noticed the restart) must not touch this run's state.
Status CheckIncarnation(const WorkerState& st, uint64_t expected, std::string_view what) {
  return CheckIncarnation(st.task_name, st.incarnation, expected, what);
}

// Drops a session's partitions and aborts its running steps.
void CloseSession(WorkerPointer self, int64_t session_id, const Status& why) {
  auto it = self->state.sessions.find(session_id);
  if (it == self->state.sessions.end()) return;
  HandlerScope scope(self);
  for (int64_t handle : it->second.handles) {
    auto g = self->state.graphs.find(handle);
    if (g == self->state.graphs.end()) continue;
    self->send(self->state.device_actors[g->second.device], dereg_atom::value, handle);
    self->state.graphs.erase(g);
  }
  self->state.direct->CloseSession(session_id);
  self->state.registry->AbortSession(session_id, why);
  self->state.sessions.erase(it);
  metrics::SessionsClosed()->Add();
}

// A session whose master is gone or silent: its partitions and running
// steps go, and the server says so (an operator looking at a server whose
// memory did not come back after a client died finds the reason here).
void FreeOrphanedSession(WorkerPointer self, int64_t session_id, const Status& why) {
  if (self->state.sessions.count(session_id) == 0) return;
  AF_LOG(WARNING) << "worker " << self->state.task_name << ": freed session " << session_id
                  << ": " << why.message();
  CloseSession(self, session_id, why);
}

wire::WireStatus OpenSessionOnWorker(WorkerPointer self, OpenSession& req) {
  WorkerState& st = self->state;
  if (Status s = CheckIncarnation(st, req.incarnation, "OpenSession"); !s.ok()) {
    return wire::ToWire(s);
  }
  auto router = std::make_shared<PeerRouter>(self->address());
  router->set_data_plane(st.data_plane);
  router->set_faults(st.faults);
  for (PeerWorker& peer : req.peers) {
    std::shared_ptr<PushOutbox> outbox;  // one per peer worker
    for (std::string& device : peer.devices) {
      const bool local = std::find(st.local_names->begin(), st.local_names->end(), device) !=
                         st.local_names->end();
      if (local) continue;
      if (!outbox && PushBatchingEnabled()) {
        outbox = std::make_shared<PushOutbox>(st.next_outbox++,
                                              caf::actor_cast<worker_actor>(peer.worker));
        st.outboxes.emplace(outbox->id(), outbox);
      }
      router->Add(device, caf::actor_cast<worker_actor>(peer.worker), outbox, peer.data_address);
    }
  }
  if (auto open = st.sessions.find(req.session_id); open != st.sessions.end()) {
    // The session's own master again: a peer restarted and rejoined, so
    // Sends to its devices go to its new process from now on.
    if (open->second.master && open->second.master == req.master) {
      open->second.router = std::move(router);
      OpenDirectSession(self, req, open->second);
      return wire::WireStatus{};
    }
    return wire::ToWire(errors::AlreadyExists("session ", req.session_id,
                                              " is already open on ", st.task_name));
  }
  // The server's own master service counts its clients itself.
  if (req.master && req.master.node() != self->node()) {
    int64_t held = 0;
    for (const auto& [id, open] : st.sessions) held += open.master.node() == req.master.node();
    const int64_t limit = GetServerLimits().max_sessions_per_client;
    if (held >= limit) {
      return wire::ToWire(errors::ResourceExhausted(
          "OpenSession: node ", caf::to_string(req.master.node()), " already holds ", held,
          " sessions on ", st.task_name, ", its limit (--max_sessions_per_client)"));
    }
  }
  if (req.master) self->monitor(req.master);
  if (st.sessions.count(req.session_id) == 0) metrics::SessionsOpened()->Add();
  WorkerSession& session = st.sessions[req.session_id];
  session.master = req.master;
  session.router = std::move(router);
  if (st.session_memory_limit > 0) {
    session.memory_budget = std::make_shared<MemoryBudget>(
        "session " + std::to_string(req.session_id) + " on " + st.task_name,
        st.session_memory_limit);
  }
  OpenDirectSession(self, req, session);
  if (req.master_lost_after_ms > 0) {
    session.master_lost_after = std::chrono::milliseconds(req.master_lost_after_ms);
    session.last_heartbeat = std::chrono::steady_clock::now();
    if (!st.watching_masters) {
      st.watching_masters = true;
      self->delayed_send(self, kMasterWatchPeriod, watch_atom::value);
    }
  }
  return wire::WireStatus{};
}

// Dials the session's peers this server must reach itself
// (actors/worker/peer_connections.h), then answers OpenSession with
// `opened`. A peer that cannot be dialed is logged: the session still
// opens, and its tensors take the route through the master's process.
caf::result<wire::WireStatus> DialPeersThenAnswer(
    WorkerPointer self, const std::vector<std::pair<std::string, uint16_t>>& targets,
    wire::WireStatus opened) {
  if (targets.empty()) return opened;
  // Before the promise: once one exists, the handler's own return value is
  // no longer the answer, and a refusal returned here would be lost.
  caf::io::middleman_actor connector;
  if (Status s = ConnectionManagerFor(self->system(), self->state.cluster_secret, &connector);
      !s.ok()) {
    return wire::ToWire(s.WithContext("OpenSession on " + self->state.task_name));
  }
  auto promise = self->make_response_promise<wire::WireStatus>();
  auto pending = std::make_shared<size_t>(targets.size());
  auto refused = std::make_shared<Status>();
  auto one_done = [=]() mutable {
    if (--*pending == 0) promise.deliver(refused->ok() ? opened : wire::ToWire(*refused));
  };
  for (const auto& [host, port] : targets) {
    self->request(connector, kPeerDialTimeout, caf::connect_atom::value, host, port)
        .then([=, host = host, port = port](const caf::node_id&, caf::strong_actor_ptr& found,
                                            const std::set<std::string>&) mutable {
                if (!found) return one_done();
                // The master compared versions with both of us; this
                // catches a master that did not, before tensors cross.
                CheckVersionAsync(
                    self, caf::actor_cast<caf::actor>(found), kPeerDialTimeout,
                    "the peer server at " + host + ":" + std::to_string(port),
                    [=](Status same_wire) mutable {
                      if (errors::IsFailedPrecondition(same_wire)) {
                        refused->Update(errors::FailedPrecondition(
                            "OpenSession on ", self->state.task_name, ": ", same_wire.message()));
                      }
                      one_done();
                    });
              },
              [=, host = host, port = port](caf::error& err) mutable {
                AF_LOG(WARNING) << "worker " << self->state.task_name
                                << ": could not dial peer " << host << ":" << port << ": "
                                << self->system().render(err);
                one_done();
              });
  }
  return promise;
}

// Resets `containers` on every device of this worker.
caf::result<wire::WireStatus> ResetContainers(WorkerPointer self,
                                              const std::vector<std::string>& containers) {
  const auto& actors = self->state.container_actors;
  if (actors.empty()) return wire::WireStatus{};
  auto promise = self->make_response_promise<wire::WireStatus>();
  auto pending = std::make_shared<size_t>(actors.size());
  auto result = std::make_shared<Status>();
  auto one_done = [=](const Status& s) mutable {
    result->Update(s);
    if (--*pending == 0) promise.deliver(wire::ToWire(*result));
  };
  for (const container_actor& c : actors) {
    self->request(c, kContainerTimeout, reset_atom::value, containers)
        .then([=](wire::WireStatus& s) mutable { one_done(wire::FromWire(s)); },
              [=](caf::error& err) mutable {
                one_done(errors::Internal("Reset on ", self->state.task_name,
                                          ": a container actor failed: ",
                                          self->system().render(err)));
              });
  }
  return promise;
}

// Every device's containers, device by device.
caf::result<std::vector<ContainerListing>> ListContainers(WorkerPointer self) {
  const auto& actors = self->state.container_actors;
  if (actors.empty()) return std::vector<ContainerListing>{};
  auto promise = self->make_response_promise<std::vector<ContainerListing>>();
  auto pending = std::make_shared<size_t>(actors.size());
  auto parts = std::make_shared<std::vector<std::vector<ContainerListing>>>(actors.size());
  auto failed = std::make_shared<bool>(false);
  for (size_t i = 0; i < actors.size(); ++i) {
    self->request(actors[i], kContainerTimeout, list_cont_atom::value)
        .then(
            [=](std::vector<ContainerListing>& listing) mutable {
              (*parts)[i] = std::move(listing);
              if (--*pending > 0 || *failed) return;
              std::vector<ContainerListing> all;
              for (auto& part : *parts)
                for (auto& l : part) all.push_back(std::move(l));
              promise.deliver(std::move(all));
            },
            [=](caf::error& err) mutable {
              --*pending;
              if (std::exchange(*failed, true)) return;
              promise.deliver(std::move(err));
            });
  }
  return promise;
}


}  // namespace af::actors
