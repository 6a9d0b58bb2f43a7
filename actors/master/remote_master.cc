#include "actors/master/remote_master.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <unordered_map>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/sec.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/system_messages.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/transport/caf_status.h"

namespace af::actors {
namespace {

using Clock = Completion::Clock;

// The server's master enforces each call's deadline itself (a Run past it
// is aborted there); the client waits this much longer for that answer.
constexpr auto kReplyGrace = std::chrono::milliseconds(500);

struct RemoteMasterState {
  // Not an aggregate: CAF would otherwise build the state from the actor
  // pointer (C++20 aggregate init from its first member, a handle).
  RemoteMasterState() = default;
  worker_actor server;
  std::string target;  // "af://host:port"
  wire::MasterSessionRequest request;
  master_session_actor session;  // null until the session is open
  // Calls waiting for the server, by id: all fail when the server goes.
  std::unordered_map<uint64_t, std::shared_ptr<ClientCall>> waiting;
  uint64_t next_call = 1;
  Status lost;  // why the server is gone (OK while it is there)
  static inline const char* name = "af.remote_master";
};
using ProxyPointer = master_actor::stateful_pointer<RemoteMasterState>;

int64_t MillisLeft(const ClientCall& call) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(call.deadline - Clock::now());
  return std::max<int64_t>(left.count(), 1);
}

caf::duration RequestTimeout(const ClientCall& call) {
  return caf::duration(std::chrono::milliseconds(MillisLeft(call)) + kReplyGrace);
}

Status MasterCallFailed(ProxyPointer self, const caf::error& err, std::string_view what) {
  return af::actors::FromCafError(self->system(), err,
                      std::string(what) + ": the master at " + self->state.target);
}

// Admits a call: fails it at once when the session is not open or the
// server is gone; otherwise records it so that losing the server fails it.
bool Admit(ProxyPointer self, const std::shared_ptr<ClientCall>& call, std::string_view what,
           uint64_t* id) {
  RemoteMasterState& st = self->state;
  if (!st.lost.ok()) {
    call->Finish(st.lost);
    return false;
  }
  if (!st.session) {
    call->Finish(errors::FailedPrecondition(what, ": the session on ", st.target, " is not open"));
    return false;
  }
  *id = st.next_call++;
  st.waiting.emplace(*id, call);
  return true;
}

// Ends a call admitted with `id`, unless losing the server ended it first.
void Finish(ProxyPointer self, uint64_t id, Status status) {
  auto it = self->state.waiting.find(id);
  if (it == self->state.waiting.end()) return;
  std::shared_ptr<ClientCall> call = std::move(it->second);
  self->state.waiting.erase(it);
  call->Finish(std::move(status));
}

void Init(ProxyPointer self, std::shared_ptr<InitCall> call) {
  RemoteMasterState& st = self->state;
  if (st.session || !st.lost.ok()) {
    return call->Finish(errors::FailedPrecondition("Session: already initialized"));
  }
  self->request(st.server, RequestTimeout(*call), open_master_atom::value, st.request)
      .then(
          [=](wire::WireStatus& status, caf::actor& session,
              std::vector<wire::DeviceInfo>& devices) {
            Status s = wire::FromWire(status);
            if (s.ok() && !session) {
              s = errors::Internal("Session: ", self->state.target,
                                   " opened a session without a master");
            }
            if (!s.ok()) return call->Finish(s.WithContext("Session: on " + self->state.target));
            self->state.session = caf::actor_cast<master_session_actor>(session);
            self->monitor(session);
            // The server frees the session of a client whose heartbeats stop.
            self->send(self, heartbeat_atom::value);
            for (const wire::DeviceInfo& d : devices) {
              call->devices.push_back(DeviceAttributes{d.name, d.type, d.incarnation});
            }
            call->Finish(Status::OK());
          },
          [=](caf::error& err) { call->Finish(MasterCallFailed(self, err, "Session")); });
}

void Extend(ProxyPointer self, std::shared_ptr<ExtendCall> call) {
  uint64_t id = 0;
  if (!Admit(self, call, "Extend", &id)) return;
  std::string bytes;
  if (!call->graph.SerializeToString(&bytes)) {
    return Finish(self, id, errors::InvalidArgument("Extend: the GraphDef does not serialize"));
  }
  self->request(self->state.session, RequestTimeout(*call), extend_atom::value, std::move(bytes),
                MillisLeft(*call))
      .then([=](wire::WireStatus& status) { Finish(self, id, wire::FromWire(status)); },
            [=](caf::error& err) { Finish(self, id, MasterCallFailed(self, err, "Extend")); });
}

void Run(ProxyPointer self, std::shared_ptr<RunCall> call) {
  uint64_t id = 0;
  if (!Admit(self, call, "Run", &id)) return;
  wire::RunStepRequest req;
  req.feed_names.reserve(call->feeds.size());
  req.feed_values.reserve(call->feeds.size());
  for (const auto& [name, value] : call->feeds) {
    req.feed_names.push_back(name);
    req.feed_values.push_back(value);  // shares the buffer
  }
  req.fetches = call->fetches;
  req.targets = call->targets;
  req.timeout_ms = MillisLeft(*call);
  req.trace = call->trace;
  self->request(self->state.session, RequestTimeout(*call), run_atom::value, std::move(req))
      .then(
          [=](wire::RunStepResponse& response) {
            Status s = wire::FromWire(response.status);
            if (s.ok() && response.outputs.size() != call->fetches.size()) {
              s = errors::Internal("Run: ", self->state.target, " returned ",
                                   response.outputs.size(), " values for ",
                                   call->fetches.size(), " fetches");
            }
            if (s.ok()) {
              call->outputs = std::move(response.outputs);
              call->traffic = std::move(response.traffic);
              if (call->trace && !call->step_stats.ParseFromString(response.step_stats)) {
                s = errors::Internal("Run: the step stats from ", self->state.target,
                                     " do not parse");
              }
            }
            Finish(self, id, std::move(s));
          },
          [=](caf::error& err) { Finish(self, id, MasterCallFailed(self, err, "Run")); });
}

void Containers(ProxyPointer self, std::shared_ptr<ContainerCall> call) {
  const char* what = call->list ? "ListContainers" : "Reset";
  uint64_t id = 0;
  if (!Admit(self, call, what, &id)) return;
  self->request(self->state.session, RequestTimeout(*call), containers_atom::value, call->list,
                call->containers, MillisLeft(*call))
      .then(
          [=](wire::WireStatus& status, std::vector<ContainerListing>& listing) {
            call->listing = std::move(listing);
            Finish(self, id, wire::FromWire(status));
          },
          [=](caf::error& err) { Finish(self, id, MasterCallFailed(self, err, what)); });
}

void Stats(ProxyPointer self, std::shared_ptr<StatsCall> call) {
  uint64_t id = 0;
  if (!Admit(self, call, "GetStats", &id)) return;
  self->request(self->state.session, RequestTimeout(*call), stats_atom::value, MillisLeft(*call))
      .then(
          [=](wire::WireStatus& status, SessionStats& stats) {
            call->stats = stats;
            Finish(self, id, wire::FromWire(status));
          },
          [=](caf::error& err) { Finish(self, id, MasterCallFailed(self, err, "GetStats")); });
}

void Close(ProxyPointer self, std::shared_ptr<CloseCall> call) {
  RemoteMasterState& st = self->state;
  if (!st.session) return call->Finish(Status::OK());  // nothing opened there
  uint64_t id = 0;
  if (!Admit(self, call, "Close", &id)) return;
  self->request(st.session, RequestTimeout(*call), close_atom::value, MillisLeft(*call))
      .then(
          [=](wire::WireStatus& status) {
            self->demonitor(self->state.session.address());
            self->state.lost = errors::FailedPrecondition("the session was closed");
            Finish(self, id, wire::FromWire(status));
          },
          [=](caf::error& err) { Finish(self, id, MasterCallFailed(self, err, "Close")); });
}

master_actor::behavior_type RemoteMasterBehavior(ProxyPointer self, worker_actor server,
                                                 std::string target,
                                                 wire::MasterSessionRequest request) {
  RemoteMasterState& st = self->state;
  st.server = std::move(server);
  st.target = std::move(target);
  st.request = std::move(request);
  // CAF fails no pending request when a remote node dies; the monitor
  // does it for every waiting call.
  self->set_down_handler([=](caf::down_msg& down) {
    RemoteMasterState& s = self->state;
    if (!s.lost.ok()) return;
    s.lost = errors::Unavailable("the master at ", s.target, " is gone (",
                                 self->system().render(down.reason), ")");
    auto waiting = std::move(s.waiting);
    s.waiting.clear();
    for (auto& [id, call] : waiting) call->Finish(s.lost);
  });
  return {
      [=](init_atom, std::shared_ptr<InitCall> call) { Init(self, std::move(call)); },
      [=](extend_atom, std::shared_ptr<ExtendCall> call) { Extend(self, std::move(call)); },
      [=](run_atom, std::shared_ptr<RunCall> call) { Run(self, std::move(call)); },
      [=](close_atom, std::shared_ptr<CloseCall> call) { Close(self, std::move(call)); },
      [=](containers_atom, std::shared_ptr<ContainerCall> call) {
        Containers(self, std::move(call));
      },
      [=](stats_atom, std::shared_ptr<StatsCall> call) { Stats(self, std::move(call)); },
      // This proxy's tick: the session's heartbeat to the server, at the
      // session's heartbeat interval, while the session is open. (The
      // server's master heartbeats the workers itself.)
      [=](heartbeat_atom) {
        const auto& sender = self->current_sender();
        if (sender == nullptr || sender->address() != self->address()) return;
        RemoteMasterState& s = self->state;
        if (!s.session || !s.lost.ok()) return;
        self->send(s.session, heartbeat_atom::value);
        self->delayed_send(self, std::chrono::milliseconds(s.request.heartbeat_interval_ms),
                           heartbeat_atom::value);
      },
      // The server's master dispatches steps; no worker answers this proxy.
      [=](direct_reply_atom, uint64_t, const wire::RunGraphResponse&) {},
  };
}

}  // namespace

master_actor SpawnRemoteMaster(caf::actor_system& system, worker_actor server,
                               std::string target, wire::MasterSessionRequest request) {
  return system.spawn(RemoteMasterBehavior, std::move(server), std::move(target),
                      std::move(request));
}

}  // namespace af::actors
