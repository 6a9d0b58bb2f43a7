#include "actors/master/master_service.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/transport/admitted_handler.h"
#include "actors/cluster_connect.h"
#include "actors/master/cluster_membership.h"
#include "actors/master/master_actor.h"
#include "actors/transport/peer_auth.h"
#include "core/cluster_spec.h"
#include "core/logging.h"
#include "core/metrics/metrics_registry.h"
#include "core/server_limits.h"

namespace af::actors {
namespace {

using Clock = Completion::Clock;

// How long a server-side call may run when the client's own time left is
// unusable (zero or negative): the client gives up at its deadline anyway.
constexpr auto kFallbackTimeout = std::chrono::seconds(60);
// Extra time the setup thread waits for the master's own answer past the
// deadline, which the master enforces itself.
constexpr auto kReplyGrace = std::chrono::milliseconds(500);

// The server's cap on what a client may ask (MasterServiceOptions::
// max_call; 0: none). One master service per process.
std::atomic<int64_t> g_max_call_ms{0};

Clock::time_point DeadlineIn(int64_t timeout_ms) {
  if (timeout_ms <= 0) timeout_ms = std::chrono::milliseconds(kFallbackTimeout).count();
  const int64_t cap = g_max_call_ms.load(std::memory_order_relaxed);
  if (cap > 0) timeout_ms = std::min(timeout_ms, cap);
  return Clock::now() + std::chrono::milliseconds(timeout_ms);
}

// Closes a master's sessions on its workers, then stops it. Nothing waits:
// the master finishes the call in its own time and the callback ends it.
void CloseAndStopMaster(const master_actor& master) {
  if (!master) return;
  auto call = std::make_shared<CloseCall>();
  call->deadline = Clock::now() + std::chrono::seconds(10);
  call->on_finish = [master] { caf::anon_send_exit(master, caf::exit_reason::user_shutdown); };
  caf::anon_send(master, close_atom::value, call);
}

// ---------------------------------------------------------------------------
// One client's session.

struct MasterSessionState {
  // Not an aggregate: CAF would otherwise build the state from the actor
  // pointer (C++20 aggregate init from its first member, a handle).
  MasterSessionState() = default;
  master_actor master;
  // Calls handed to the master, by id, with what to answer the client once
  // the master finished the call.
  struct Answer {
    std::shared_ptr<ClientCall> call;
    std::function<void()> deliver;
  };
  std::unordered_map<uint64_t, Answer> answers;
  uint64_t next_call = 1;
  bool closed = false;
  // The client's heartbeats (none until its first: an embedding
  // application's actors send none and are never timed).
  std::chrono::milliseconds client_timeout{0};
  bool client_beats = false;
  Clock::time_point last_beat;
  static inline const char* name = "af.master_session";
};
using SessionPointer = master_session_actor::stateful_pointer<MasterSessionState>;

// Hands `call` to the master; `answer` runs in this actor once the master
// finished it. The master signals through a weak handle, so a session that
// went away is not kept alive by calls still in the master's hands.
template <class Atom, class CallType>
void Forward(SessionPointer self, Atom atom, std::shared_ptr<CallType> call,
             std::function<void(CallType&)> answer) {
  MasterSessionState& st = self->state;
  const uint64_t id = st.next_call++;
  auto me = caf::actor_cast<caf::weak_actor_ptr>(self);
  call->on_finish = [me, id] {
    if (auto strong = caf::actor_cast<caf::strong_actor_ptr>(me)) {
      caf::anon_send(caf::actor_cast<master_session_actor>(strong), call_done_atom::value, id);
    }
  };
  st.answers.emplace(id, MasterSessionState::Answer{
                             call, [call, answer = std::move(answer)] { answer(*call); }});
  caf::anon_send(st.master, atom, std::move(call));
}

void EndSession(SessionPointer self) {
  MasterSessionState& st = self->state;
  if (st.closed) return;
  st.closed = true;
  CloseAndStopMaster(st.master);
}

// How often a session looks at its client's last heartbeat: a quarter of
// the timeout, so that a silent client is freed within 1.25 timeouts.
std::chrono::milliseconds SweepInterval(std::chrono::milliseconds timeout) {
  return std::max<std::chrono::milliseconds>(timeout / 4, std::chrono::milliseconds(50));
}

metrics::Counter* SessionsOfSilentClients() {
  static metrics::Counter* const c = metrics::MetricsRegistry::Global().GetCounter(
      "actorflow_master_sessions_expired_total",
      "af:// sessions this server's master closed because their client stopped heartbeating.");
  return c;
}

// The client's tick: frees the session of a client silent past the timeout.
void SweepSilentClient(SessionPointer self) {
  MasterSessionState& st = self->state;
  if (st.closed) return;
  const auto silent = Clock::now() - st.last_beat;
  if (st.client_beats && silent > st.client_timeout) {
    AF_LOG(WARNING) << "closing an af:// session: its client sent no heartbeat for "
                    << std::chrono::duration_cast<std::chrono::milliseconds>(silent).count()
                    << " ms (--client_timeout_secs "
                    << static_cast<double>(st.client_timeout.count()) / 1000
                    << "): the process stopped or hung with its connection open";
    SessionsOfSilentClients()->Add();
    EndSession(self);
    self->quit();
    return;
  }
  self->delayed_send(self, SweepInterval(st.client_timeout), sweep_atom::value);
}

master_session_actor::behavior_type MasterSessionBehavior(SessionPointer self,
                                                          master_actor master,
                                                          caf::actor client,
                                                          std::chrono::milliseconds client_timeout) {
  self->state.master = std::move(master);
  self->state.client_timeout = client_timeout;
  if (client_timeout.count() > 0) {
    self->delayed_send(self, SweepInterval(client_timeout), sweep_atom::value);
  }
  // A client that goes away (its process died, or it dropped the proxy
  // without closing) frees its session here.
  if (client) self->monitor(client);
  self->set_down_handler([=](caf::down_msg&) {
    EndSession(self);
    self->quit();
  });
  const auto admit = [self](std::string_view what) { return CheckPeer(self, what); };
  return {
      Admitted(admit, "Extend",
               [=](extend_atom, std::string& graph_bytes,
                   int64_t timeout_ms) -> caf::result<wire::WireStatus> {
                 // The size before parsing it, the nodes after.
                 if (Status s =
                         CheckGraphLimits("Extend", static_cast<int64_t>(graph_bytes.size()), -1);
                     !s.ok()) {
                   return wire::ToWire(s);
                 }
                 auto call = std::make_shared<ExtendCall>();
                 if (!call->graph.ParseFromString(graph_bytes)) {
                   return wire::ToWire(errors::InvalidArgument(
                       "Extend: the GraphDef sent by the client does not parse"));
                 }
                 if (Status s = CheckGraphLimits("Extend", /*bytes=*/-1, call->graph.node_size());
                     !s.ok()) {
                   return wire::ToWire(s);
                 }
                 call->deadline = DeadlineIn(timeout_ms);
                 auto promise = self->make_response_promise<wire::WireStatus>();
                 Forward<extend_atom, ExtendCall>(self, extend_atom::value, std::move(call),
                                                  [promise](ExtendCall& done) mutable {
                                                    promise.deliver(wire::ToWire(done.status));
                                                  });
                 return promise;
               }),
      Admitted(admit, "Run",
               [=](run_atom, wire::RunStepRequest& req) -> caf::result<wire::RunStepResponse> {
                 if (req.feed_names.size() != req.feed_values.size()) {
                   wire::RunStepResponse bad;
                   bad.status = wire::ToWire(
                       errors::InvalidArgument("Run: ", req.feed_names.size(), " feed names but ",
                                               req.feed_values.size(), " feed values"));
                   return bad;
                 }
                 auto call = std::make_shared<RunCall>();
                 call->feeds.reserve(req.feed_names.size());
                 for (size_t i = 0; i < req.feed_names.size(); ++i) {
                   call->feeds.emplace_back(std::move(req.feed_names[i]),
                                            std::move(req.feed_values[i]));
                 }
                 call->fetches = std::move(req.fetches);
                 call->targets = std::move(req.targets);
                 call->trace = req.trace;
                 call->deadline = DeadlineIn(req.timeout_ms);
                 auto promise = self->make_response_promise<wire::RunStepResponse>();
                 Forward<run_atom, RunCall>(
                     self, run_atom::value, std::move(call), [promise](RunCall& done) mutable {
                       wire::RunStepResponse response;
                       response.status = wire::ToWire(done.status);
                       if (done.status.ok()) {
                         response.outputs = std::move(done.outputs);
                         response.traffic = std::move(done.traffic);
                         if (done.trace) {
                           done.step_stats.SerializeToString(&response.step_stats);
                         }
                       }
                       promise.deliver(std::move(response));
                     });
                 return promise;
               }),
      Admitted(
          admit, "Containers",
          [=](containers_atom, bool list, std::vector<std::string>& containers,
              int64_t timeout_ms) -> caf::result<wire::WireStatus, std::vector<ContainerListing>> {
            auto call = std::make_shared<ContainerCall>();
            call->list = list;
            call->containers = std::move(containers);
            call->deadline = DeadlineIn(timeout_ms);
            auto promise =
                self->make_response_promise<wire::WireStatus, std::vector<ContainerListing>>();
            Forward<containers_atom, ContainerCall>(self, containers_atom::value, std::move(call),
                                                    [promise](ContainerCall& done) mutable {
                                                      promise.deliver(wire::ToWire(done.status),
                                                                      std::move(done.listing));
                                                    });
            return promise;
          }),
      Admitted(admit, "GetStats",
               [=](stats_atom, int64_t timeout_ms) -> caf::result<wire::WireStatus, SessionStats> {
                 auto call = std::make_shared<StatsCall>();
                 call->deadline = DeadlineIn(timeout_ms);
                 auto promise = self->make_response_promise<wire::WireStatus, SessionStats>();
                 Forward<stats_atom, StatsCall>(
                     self, stats_atom::value, std::move(call), [promise](StatsCall& done) mutable {
                       promise.deliver(wire::ToWire(done.status), done.stats);
                     });
                 return promise;
               }),
      Admitted(admit, "Close",
               [=](close_atom, int64_t timeout_ms) -> caf::result<wire::WireStatus> {
                 auto call = std::make_shared<CloseCall>();
                 call->deadline = DeadlineIn(timeout_ms);
                 auto promise = self->make_response_promise<wire::WireStatus>();
                 Forward<close_atom, CloseCall>(
                     self, close_atom::value, std::move(call),
                     [self, promise](CloseCall& done) mutable {
                       promise.deliver(wire::ToWire(done.status));
                       self->state.closed = true;
                       caf::anon_send_exit(self->state.master, caf::exit_reason::user_shutdown);
                       self->quit();
                     });
                 return promise;
               }),
      Admitted(admit, "Heartbeat",
               [=](heartbeat_atom) {
                 self->state.client_beats = true;
                 self->state.last_beat = Clock::now();
               }),
      [=](sweep_atom) {
        // Only its own ticks: a peer must not be able to end a session early.
        const auto& sender = self->current_sender();
        if (sender == nullptr || sender->address() != self->address()) return;
        SweepSilentClient(self);
      },
      [=](call_done_atom, uint64_t id) {
        auto it = self->state.answers.find(id);
        // The notice comes without a sender (from whichever thread finished
        // the call), so anyone could forge one: only a call whose result is
        // complete counts.
        if (it == self->state.answers.end() || !it->second.call->done.IsDone()) return;
        auto deliver = std::move(it->second.deliver);
        self->state.answers.erase(it);
        deliver();
      },
  };
}

// ---------------------------------------------------------------------------
// The service: opens sessions.

using OpenPromise =
    caf::typed_response_promise<wire::WireStatus, caf::actor, std::vector<wire::DeviceInfo>>;

struct PendingOpen {
  OpenPromise promise;
  caf::actor client;
  // The session's client timeout: the server's, or four of the client's
  // heartbeat intervals if that is longer (0: none).
  std::chrono::milliseconds client_timeout{0};
};

struct MasterServiceState {
  // Not an aggregate: CAF would otherwise build the state from the actor
  // pointer (C++20 aggregate init from its first member, a handle).
  MasterServiceState() = default;
  worker_actor local_worker;
  MasterServiceOptions options;
  std::unordered_map<uint64_t, PendingOpen> opening;
  uint64_t next_open = 1;
  // Sessions opening or open per client node (--max_sessions_per_client),
  // and the node of each open session, to count it down when it ends.
  std::unordered_map<caf::node_id, int64_t> sessions_per_node;
  std::unordered_map<caf::actor_addr, caf::node_id> session_nodes;
  static inline const char* name = "af.master_service";
};
using ServicePointer = master_service_actor::stateful_pointer<MasterServiceState>;

struct SetupRequest {
  worker_actor local_worker;
  std::vector<RemoteTask> tasks;
  HealthCheckOptions health;
  std::string cluster_secret;
  std::shared_ptr<DataPlane> data_plane;
  OptimizerOptions optimizer;
  Clock::time_point deadline;
  master_service_actor service;
  uint64_t id = 0;
};

// Runs on a thread of its own (a detached actor): the startup rendezvous
// retries connections and sleeps, which must not hold a scheduler thread.
void SetUpMaster(caf::blocking_actor* self, const SetupRequest& req) {
  std::vector<worker_actor> remotes;
  Status s = ConnectToTasks(self->system(), req.tasks, req.deadline, &remotes, req.cluster_secret);
  master_actor master;
  std::vector<wire::DeviceInfo> devices;
  if (s.ok()) {
    std::vector<MasterWorker> workers{MasterWorker{req.local_worker, "local", false}};
    for (size_t i = 0; i < remotes.size(); ++i) {
      workers.push_back(MasterWorker{std::move(remotes[i]), req.tasks[i].address, true});
    }
    master = SpawnMasterActor(self->system(), std::move(workers), nullptr, req.health,
                              req.cluster_secret, req.data_plane, req.optimizer);
    auto call = std::make_shared<InitCall>();
    call->deadline = req.deadline;
    caf::anon_send(master, init_atom::value, call);
    if (!call->done.WaitUntil(req.deadline + kReplyGrace)) {
      s = errors::DeadlineExceeded("Session: the server's master did not open the session "
                                   "before the deadline");
    } else {
      s = call->status;
    }
    if (s.ok()) s = CheckTasks(req.tasks, call->devices);
    if (s.ok()) {
      for (const DeviceAttributes& d : call->devices) {
        devices.push_back(wire::DeviceInfo{d.name, d.type, d.incarnation, /*data_address=*/""});
      }
    } else {
      CloseAndStopMaster(master);
      master = nullptr;
    }
  }
  self->send(req.service, opened_atom::value, req.id, wire::ToWire(s),
             caf::actor_cast<caf::actor>(master), std::move(devices));
}

// A session that names no tasks uses the server's cluster.
std::vector<RemoteTask> SessionTasks(const wire::MasterSessionRequest& req,
                                     const MasterServiceOptions& options) {
  if (req.task_addresses.empty()) return options.cluster_tasks;
  std::vector<RemoteTask> tasks;
  for (size_t i = 0; i < req.task_addresses.size(); ++i) {
    tasks.push_back(RemoteTask{req.task_addresses[i],
                               i < req.task_names.size() ? req.task_names[i] : std::string()});
  }
  return tasks;
}

void CountSessionDown(MasterServiceState& st, const caf::node_id& node) {
  auto it = st.sessions_per_node.find(node);
  if (it != st.sessions_per_node.end() && --it->second <= 0) st.sessions_per_node.erase(it);
}

master_service_actor::behavior_type MasterServiceBehavior(ServicePointer self,
                                                          worker_actor local_worker,
                                                          MasterServiceOptions options) {
  self->state.local_worker = std::move(local_worker);
  self->state.options = std::move(options);
  self->set_down_handler([=](caf::down_msg& down) {
    auto it = self->state.session_nodes.find(down.source);
    if (it == self->state.session_nodes.end()) return;
    CountSessionDown(self->state, it->second);
    self->state.session_nodes.erase(it);
  });
  const auto admit = [self](std::string_view what) { return CheckPeer(self, what); };
  return {
      Admitted(admit, "OpenMasterSession",
               [=](open_master_atom, wire::MasterSessionRequest& req)
                   -> caf::result<wire::WireStatus, caf::actor, std::vector<wire::DeviceInfo>> {
                 auto client = caf::actor_cast<caf::actor>(self->current_sender());
                 if (!client) {
                   return {wire::ToWire(errors::InvalidArgument(
                               "Session: an anonymous request cannot own a session on a server")),
                           caf::actor{}, std::vector<wire::DeviceInfo>{}};
                 }
                 OptimizerOptions optimizer;
                 if (Status bad = OptimizerOptions::Parse(req.optimizer, &optimizer); !bad.ok()) {
                   return {wire::ToWire(bad.WithContext("Session")), caf::actor{},
                           std::vector<wire::DeviceInfo>{}};
                 }
                 if (req.max_folded_constant_bytes < 0) {
                   return {wire::ToWire(errors::InvalidArgument(
                               "Session: max_folded_constant_bytes ", req.max_folded_constant_bytes,
                               " is negative")),
                           caf::actor{}, std::vector<wire::DeviceInfo>{}};
                 }
                 optimizer.max_folded_constant_in_bytes = req.max_folded_constant_bytes;
                 optimizer.bfloat16_transfer = req.bfloat16_transfer;
                 optimizer.bfloat16_transfer_pattern = req.bfloat16_transfer_pattern;
                 if (req.setup_timeout_ms <= 0 || req.heartbeat_interval_ms <= 0 ||
                     req.worker_lost_after_ms < 2 * req.heartbeat_interval_ms) {
                   return {wire::ToWire(errors::InvalidArgument(
                               "Session: bad timeouts in the request (setup ", req.setup_timeout_ms,
                               " ms, heartbeat ", req.heartbeat_interval_ms, " ms, lost after ",
                               req.worker_lost_after_ms, " ms)")),
                           caf::actor{}, std::vector<wire::DeviceInfo>{}};
                 }
                 MasterServiceState& st = self->state;
                 int64_t& held = st.sessions_per_node[client.node()];
                 const int64_t limit = GetServerLimits().max_sessions_per_client;
                 if (held >= limit) {
                   return {
                       wire::ToWire(errors::ResourceExhausted(
                           "Session: node ", caf::to_string(client.node()), " already holds ", held,
                           " sessions on this server, its limit (--max_sessions_per_client)")),
                       caf::actor{}, std::vector<wire::DeviceInfo>{}};
                 }
                 ++held;
                 const uint64_t id = st.next_open++;
                 OpenPromise promise = self->make_response_promise<wire::WireStatus, caf::actor,
                                                                   std::vector<wire::DeviceInfo>>();
                 std::chrono::milliseconds client_timeout = st.options.client_timeout;
                 if (client_timeout.count() > 0) {
                   client_timeout = std::max(
                       client_timeout, std::chrono::milliseconds(4 * req.heartbeat_interval_ms));
                 }
                 st.opening.emplace(id, PendingOpen{promise, client, client_timeout});
                 SetupRequest setup;
                 setup.local_worker = st.local_worker;
                 setup.tasks = SessionTasks(req, st.options);
                 setup.cluster_secret = st.options.cluster_secret;
                 setup.data_plane = st.options.data_plane;
                 setup.optimizer = optimizer;
                 setup.health.interval = std::chrono::milliseconds(req.heartbeat_interval_ms);
                 setup.health.lost_after = std::chrono::milliseconds(req.worker_lost_after_ms);
                 setup.deadline = Clock::now() + std::chrono::milliseconds(req.setup_timeout_ms);
                 setup.service = caf::actor_cast<master_service_actor>(self);
                 setup.id = id;
                 self->system().spawn<caf::detached>(SetUpMaster, std::move(setup));
                 return promise;
               }),
      Admitted(admit, "JoinCluster",
               [=](join_atom, std::string& job, std::string& address)
                   -> caf::result<wire::WireStatus, std::vector<std::string>,
                                  std::vector<std::string>, int32_t> {
                 MasterServiceOptions& o = self->state.options;
                 const std::string self_address = o.self_address ? o.self_address() : "";
                 std::vector<std::string> names, addresses;
                 if (o.self_task.empty() || self_address.empty()) {
                   return {wire::ToWire(errors::FailedPrecondition(
                               "JoinCluster: this server is not a task of a cluster")),
                           names, addresses, -1};
                 }
                 const std::vector<RemoteTask> before = o.cluster_tasks;
                 int index = -1;
                 Status s = AddJoiningTask(o.self_task, self_address, job, address,
                                           &o.cluster_tasks, &index);
                 if (!s.ok()) return {wire::ToWire(s), names, addresses, -1};
                 EveryTask(o.self_task, self_address, o.cluster_tasks, &names, &addresses);
                 const std::string joined = ClusterSpec::TaskName(job, index);
                 if (o.cluster_tasks.size() != before.size()) {
                   AF_LOG(INFO) << "the cluster grew: " << joined << " joined at " << address
                                << " (" << names.size() << " tasks)";
                   // Everyone but the newcomer, which gets the list in the answer.
                   DistributeMembers(self->system(), names, addresses, before,
                                     o.cluster_secret);
                 }
                 return {wire::ToWire(Status::OK()), std::move(names), std::move(addresses),
                         static_cast<int32_t>(index)};
               }),
      Admitted(admit, "ClusterMembers",
               [=](cluster_atom, std::vector<std::string>& names,
                   std::vector<std::string>& addresses) {
                 MasterServiceOptions& o = self->state.options;
                 std::vector<RemoteTask> others;
                 if (Status s = OtherTasks(names, addresses, o.self_task, &others); !s.ok()) {
                   AF_LOG(WARNING) << "ignoring the cluster's new members: " << s;
                   return;
                 }
                 if (others.size() != o.cluster_tasks.size()) {
                   AF_LOG(INFO) << "the cluster now has " << names.size()
                                << " tasks; sessions opened from now on use them all";
                 }
                 o.cluster_tasks = std::move(others);
               }),
      [=](opened_atom, uint64_t id, wire::WireStatus& status, caf::actor& master,
          std::vector<wire::DeviceInfo>& devices) {
        // Only the setup threads of this process report here.
        const auto& sender = self->current_sender();
        const bool local = sender != nullptr && sender->node() == self->node();
        auto it = self->state.opening.find(id);
        if (!local || it == self->state.opening.end()) return;
        PendingOpen pending = std::move(it->second);
        self->state.opening.erase(it);
        const caf::node_id client_node = pending.client.node();
        if (status.code != 0 || !master) {
          CountSessionDown(self->state, client_node);
          pending.promise.deliver(std::move(status), caf::actor{}, std::move(devices));
          return;
        }
        auto session = self->system().spawn(MasterSessionBehavior,
                                            caf::actor_cast<master_actor>(master),
                                            std::move(pending.client), pending.client_timeout);
        self->monitor(session);
        self->state.session_nodes.emplace(session.address(), client_node);
        pending.promise.deliver(std::move(status), caf::actor_cast<caf::actor>(session),
                                std::move(devices));
      },
  };
}

}  // namespace

master_session_actor SpawnMasterSession(caf::actor_system& system, master_actor master,
                                        caf::actor client,
                                        std::chrono::milliseconds client_timeout) {
  return system.spawn(MasterSessionBehavior, std::move(master), std::move(client),
                      client_timeout);
}

master_service_actor SpawnMasterService(caf::actor_system& system, worker_actor local_worker,
                                        MasterServiceOptions options) {
  g_max_call_ms.store(options.max_call.count(), std::memory_order_relaxed);
  return system.spawn(MasterServiceBehavior, std::move(local_worker), std::move(options));
}

}  // namespace af::actors
