#include "actors/worker/worker_actor.h"

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/system_messages.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/incoming_tensors.h"
#include "actors/stall_reporting.h"
#include "actors/peer_auth.h"
#include "actors/worker/data_plane.h"
#include "actors/worker/delay_line.h"
#include "actors/worker/fault_hooks.h"
#include "actors/worker/peer_connections.h"
#include "actors/device/container_actor.h"
#include "actors/device/device_actor.h"
#include "actors/worker/worker_state.h"
#include "core/device_name.h"
#include "core/fault_injection/fault_injector.h"

namespace af::actors {
namespace {

using WorkerPointer = worker_actor::stateful_pointer<WorkerState>;

// Steps announced by pushes or aborts whose RunGraph never came are
// dropped after this long; the sweep runs every kSweepPeriod.
constexpr auto kOrphanStepLifetime = std::chrono::minutes(5);
// A dial to a peer server at OpenSession (actors/worker/peer_connections.h).
constexpr auto kPeerDialTimeout = std::chrono::seconds(10);
constexpr auto kSweepPeriod = std::chrono::seconds(30);
// How often the worker checks its remote masters' heartbeats.
constexpr auto kMasterWatchPeriod = std::chrono::milliseconds(200);
// Building a partition's executor (import, kernel construction) is local
// work; this only bounds a device actor that stopped answering.
constexpr auto kRegisterTimeout = std::chrono::minutes(10);
// Resetting or listing containers is quick local work; this only bounds a
// container actor that stopped answering.
constexpr auto kContainerTimeout = std::chrono::seconds(30);

uint64_t NewIncarnation() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  uint64_t value = 0;
  while (value == 0) value = gen();
  return value;
}

// A request meant for an earlier run of this task (its master has not yet
// noticed the restart) must not touch this run's state.
// ACTORFLOW_PUSH_BATCHING=off sends every small tensor on its own, for
// measuring what the outboxes save (bench_transfer).
bool PushBatchingEnabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("ACTORFLOW_PUSH_BATCHING");
    return value == nullptr || std::string_view(value) != "off";
  }();
  return enabled;
}

Status CheckIncarnation(const WorkerState& st, uint64_t expected, std::string_view what) {
  if (expected == 0 || expected == st.incarnation) return Status::OK();
  return errors::Aborted(what, ": device incarnation changed: ", st.task_name,
                         " restarted (the request was for incarnation ", expected,
                         ", this process is ", st.incarnation, ")");
}

WorkerStep& GetOrCreateStep(WorkerPointer self, int64_t step_id) {
  auto [it, inserted] = self->state.steps.try_emplace(step_id);
  if (inserted) {
    it->second.context = std::make_shared<StepContext>(step_id, self->state.local_names);
  }
  return it->second;
}

void FinishStep(WorkerPointer self, int64_t step_id) {
  self->state.steps.erase(step_id);
  self->state.finished.Add(step_id);
  IncomingTensors::Global().ReleaseStep(step_id);
}

// What became of a tensor from another process. An error means the step
// was aborted (its own status already tells the master) or the tensor
// arrived twice: a duplicated message, ignored and counted.
void NoteDelivery(WorkerState& st, const Status& s) {
  if (s.code() != Code::ALREADY_EXISTS) return;
  const uint64_t n = ++st.duplicates_ignored;
  // 1, 10, 100, ...: a duplicate without injected faults is a transport
  // bug worth a line, and with them there are many.
  uint64_t power = 1;
  while (power < n) power *= 10;
  if (power != n) return;
  std::fprintf(stderr, "actorflow worker %s: %llu duplicated tensor%s ignored (latest: %s)\n",
               st.task_name.c_str(), static_cast<unsigned long long>(n), n == 1 ? "" : "s",
               s.message().c_str());
}

// Counts a chunk's bytes (already in the destination tensor) and hands the
// tensor to the step's rendezvous once complete. False: stop sending.
bool ReceiveChunk(WorkerPointer self, wire::TensorChunk& chunk) {
  WorkerState& st = self->state;
  if (st.finished.Contains(chunk.step_id)) {
    IncomingTensors::Global().Release(chunk.step_id, chunk.key);
    return false;
  }
  WorkerStep& step = GetOrCreateStep(self, chunk.step_id);
  if (step.context->aborted()) {
    IncomingTensors::Global().Release(chunk.step_id, chunk.key);
    return false;
  }
  uint64_t& received = step.chunk_bytes[chunk.key];
  received += chunk.length;
  if (received < chunk.tensor.TotalBytes()) return true;
  step.chunk_bytes.erase(chunk.key);
  IncomingTensors::Global().Release(chunk.step_id, chunk.key);
  HandlerScope scope(self);
  NoteDelivery(self->state, step.context->rendezvous()->DeliverFromPeer(chunk.key, chunk.tensor,
                                                                        false));
  return true;
}

wire::RunGraphResponse ErrorResponse(const Status& s) {
  wire::RunGraphResponse response;
  response.status = wire::ToWire(s);
  return response;
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
  for (auto& [step_id, step] : self->state.steps) {
    if (step.session_id == session_id) step.context->Abort(why);
  }
  self->state.sessions.erase(it);
}

// A session whose master is gone or silent: its partitions and running
// steps go, and the server says so (an operator looking at a server whose
// memory did not come back after a client died finds the reason here).
void FreeOrphanedSession(WorkerPointer self, int64_t session_id, const Status& why) {
  if (self->state.sessions.count(session_id) == 0) return;
  std::fprintf(stderr, "actorflow worker %s: freed session %lld: %s\n",
               self->state.task_name.c_str(), static_cast<long long>(session_id),
               why.message().c_str());
  CloseSession(self, session_id, why);
}

caf::result<wire::RunGraphResponse> RunGraph(WorkerPointer self, wire::RunGraphRequest& req) {
  WorkerState& st = self->state;
  const int64_t step_id = req.step_id;
  if (Status s = CheckIncarnation(st, req.incarnation, "RunGraph"); !s.ok()) {
    return ErrorResponse(s);
  }
  if (st.finished.Contains(step_id)) {
    return ErrorResponse(errors::InvalidArgument("RunGraph: step ", step_id,
                                                 " already ran on ", st.task_name));
  }
  auto session = st.sessions.find(req.session_id);
  if (session == st.sessions.end()) {
    return ErrorResponse(errors::FailedPrecondition(
        "RunGraph: session ", req.session_id, " is not open on ", st.task_name));
  }
  WorkerStep& step = GetOrCreateStep(self, step_id);
  auto fail = [&](const Status& s) {
    HandlerScope scope(self);
    step.context->Abort(s);
    FinishStep(self, step_id);
    return ErrorResponse(s);
  };
  if (step.has_run) {
    // Leave the running step alone; this request is the mistake.
    return ErrorResponse(errors::InvalidArgument("RunGraph: step ", step_id,
                                                 " is already running on ", st.task_name));
  }
  step.has_run = true;
  step.session_id = req.session_id;
  if (step.context->aborted()) return fail(step.context->status());
  std::vector<CallFrame> frames;
  std::vector<int> devices;
  frames.reserve(req.partitions.size());
  devices.reserve(req.partitions.size());
  for (wire::PartitionCall& call : req.partitions) {
    auto g = st.graphs.find(call.handle);
    if (g == st.graphs.end() || g->second.session_id != req.session_id) {
      return fail(errors::NotFound("RunGraph: partition handle ", call.handle,
                                   " is not registered on ", st.task_name, " for session ",
                                   req.session_id));
    }
    if (static_cast<int32_t>(call.args.size()) != g->second.num_args) {
      return fail(errors::InvalidArgument("RunGraph: partition ", call.handle, " on ",
                                          st.devices[g->second.device].name, " takes ",
                                          g->second.num_args, " arguments, got ",
                                          call.args.size()));
    }
    frames.emplace_back(std::move(call.args), g->second.num_retvals);
    devices.push_back(g->second.device);
  }
  if (frames.empty()) {
    FinishStep(self, step_id);
    return wire::RunGraphResponse{};
  }
  step.context->set_remote_sender(session->second.router);
  step.context->set_tracing(req.trace);
  // An injected straggler: the step starts late (its peers' Recvs wait
  // too) or answers late; either way no thread waits (DelayLine).
  faults::ComputeFault late;
  if (st.faults) {
    late = st.faults->injector->NextCompute();
    st.faults->MaybeReport(late.report);
  }
  const bool late_start =
      late.delay.count() > 0 && st.faults->injector->spec().compute_at == faults::ComputeAt::kStart;
  worker_actor me = caf::actor_cast<worker_actor>(self);
  auto done = [me, step_id] {
    SendFromAnyThreadAs(caf::actor_cast<caf::strong_actor_ptr>(me), me, step_done_atom::value,
                        step_id);
  };
  if (late.delay.count() > 0 && !late_start) {
    step.context->Start(std::move(frames), [faults = st.faults, delay = late.delay, done] {
      faults->delay_line->After(delay, done);
    });
  } else {
    step.context->Start(std::move(frames), done);
  }
  step.promise = self->make_response_promise<wire::RunGraphResponse>();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (late_start) {
      self->delayed_send(st.device_actors[devices[i]], late.delay, run_part_atom::value,
                         step.context, static_cast<int32_t>(i), req.partitions[i].handle);
    } else {
      self->send(st.device_actors[devices[i]], run_part_atom::value, step.context,
                 static_cast<int32_t>(i), req.partitions[i].handle);
    }
  }
  return step.promise;
}

// CAF frames a message with a 32-bit length and does not check it, so a
// reply to a master in another process must stay below 4 GiB.
Status CheckFitsOneMessage(WorkerPointer self, int64_t session_id, int64_t step_id,
                           const wire::RunGraphResponse& response) {
  auto session = self->state.sessions.find(session_id);
  if (session == self->state.sessions.end() || !session->second.master ||
      session->second.master.node() == self->node()) {
    return Status::OK();
  }
  uint64_t bytes = 0;
  for (const auto& partition : response.partitions) {
    for (const Tensor& t : partition.retvals) bytes += t.TotalBytes();
  }
  if (bytes < wire::kMaxMessageBytes) return Status::OK();
  return errors::ResourceExhausted("RunGraph: the fetched values of step ", step_id, " on ",
                                   self->state.task_name, " total ", bytes,
                                   " bytes, more than one message between processes carries (",
                                   wire::kMaxMessageBytes, ")");
}

void StepDone(WorkerPointer self, int64_t step_id) {
  auto it = self->state.steps.find(step_id);
  if (it == self->state.steps.end() || !it->second.has_run) return;
  WorkerStep& step = it->second;
  wire::RunGraphResponse response;
  Status s = step.context->status();
  if (s.ok()) {
    response.partitions.resize(step.context->num_partitions());
    for (int i = 0; i < step.context->num_partitions() && s.ok(); ++i) {
      s = step.context->ConsumeRetvals(i, &response.partitions[i].retvals);
      step.context->TakeCosts(i, &response.partitions[i].cost_nodes,
                              &response.partitions[i].cost_micros);
      if (step.context->tracing()) step.context->TakeTrace(i, &response.partitions[i].step_stats);
    }
  }
  if (s.ok()) s = CheckFitsOneMessage(self, step.session_id, step_id, response);
  if (!s.ok()) response = ErrorResponse(s);
  step.promise.deliver(std::move(response));
  FinishStep(self, step_id);
}

caf::result<wire::RegisterGraphResponse> RegisterGraph(WorkerPointer self,
                                                       wire::RegisterGraphRequest& req) {
  WorkerState& st = self->state;
  wire::RegisterGraphResponse failure;
  if (Status s = CheckIncarnation(st, req.incarnation, "RegisterGraph"); !s.ok()) {
    failure.status = wire::ToWire(s);
    return failure;
  }
  if (st.sessions.count(req.session_id) == 0) {
    failure.status = wire::ToWire(errors::FailedPrecondition(
        "RegisterGraph: session ", req.session_id, " is not open on ", st.task_name));
    return failure;
  }
  int device = -1;
  for (size_t i = 0; i < st.devices.size(); ++i) {
    if (st.devices[i].name == req.device) device = static_cast<int>(i);
  }
  if (device < 0) {
    std::string known;
    for (const auto& d : st.devices) known += (known.empty() ? "" : ", ") + d.name;
    failure.status = wire::ToWire(errors::InvalidArgument(
        "RegisterGraph: device '", req.device, "' is not on ", st.task_name,
        " (it has: ", known, ")"));
    return failure;
  }
  const int64_t handle = st.next_handle++;
  const int64_t session_id = req.session_id;
  auto promise = self->make_response_promise<wire::RegisterGraphResponse>();
  self->request(st.device_actors[device], kRegisterTimeout, reg_graph_atom::value, handle,
                std::move(req.graph_def))
      .then(
          [=](wire::RegisterGraphResponse& response) mutable {
            if (response.status.code == 0) {
              auto session = self->state.sessions.find(session_id);
              if (session == self->state.sessions.end()) {
                // Closed while the partition was built: nobody will run it.
                self->send(self->state.device_actors[device], dereg_atom::value, handle);
              } else {
                session->second.handles.insert(handle);
                self->state.graphs[handle] = RegisteredGraph{
                    session_id, device, response.num_args, response.num_retvals};
              }
            }
            promise.deliver(std::move(response));
          },
          [=](caf::error& err) mutable {
            wire::RegisterGraphResponse response;
            response.status = wire::ToWire(errors::Internal(
                "RegisterGraph: device actor failed: ", self->system().render(err)));
            promise.deliver(std::move(response));
          });
  return promise;
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
      return wire::WireStatus{};
    }
    return wire::ToWire(errors::AlreadyExists("session ", req.session_id,
                                              " is already open on ", st.task_name));
  }
  if (req.master) self->monitor(req.master);
  WorkerSession& session = st.sessions[req.session_id];
  session.master = req.master;
  session.router = std::move(router);
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
  auto promise = self->make_response_promise<wire::WireStatus>();
  auto pending = std::make_shared<size_t>(targets.size());
  auto one_done = [=]() mutable {
    if (--*pending == 0) promise.deliver(opened);
  };
  for (const auto& [host, port] : targets) {
    self->request(self->system().middleman().actor_handle(), kPeerDialTimeout,
                  caf::connect_atom::value, host, port)
        .then([=](const caf::node_id&, caf::strong_actor_ptr&,
                  const std::set<std::string>&) mutable { one_done(); },
              [=, host = host, port = port](caf::error& err) mutable {
                std::fprintf(stderr, "actorflow worker %s: could not dial peer %s:%u: %s\n",
                             self->state.task_name.c_str(), host.c_str(),
                             static_cast<unsigned>(port), self->system().render(err).c_str());
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

// Closes the sessions whose master stopped sending heartbeats: a master
// that hangs (or whose host vanished without closing the connection) must
// not pin its sessions' state here forever.
void WatchMasters(WorkerPointer self) {
  WorkerState& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<int64_t, double>> lost;
  for (const auto& [id, session] : st.sessions) {
    if (session.master_lost_after.count() == 0) continue;
    if (now - session.last_heartbeat > session.master_lost_after) {
      lost.emplace_back(id, std::chrono::duration<double>(now - session.last_heartbeat).count());
    }
  }
  for (const auto& [id, seconds] : lost) {
    FreeOrphanedSession(self, id,
                        errors::Aborted("the master of session ", id, " sent no heartbeat for ",
                                        static_cast<int>(seconds * 10) / 10.0, " s"));
  }
  const bool watched = std::any_of(st.sessions.begin(), st.sessions.end(), [](const auto& entry) {
    return entry.second.master_lost_after.count() != 0;
  });
  st.watching_masters = watched;
  if (watched) self->delayed_send(self, kMasterWatchPeriod, watch_atom::value);
}

// The stall inspector (as Horovod's): a hang is never silent. A step's
// Recv that has waited too long is reported once with the tensor and the
// device it waits for, which names the task to look at.
void InspectStalls(WorkerPointer self) {
  WorkerState& st = self->state;
  for (auto& [step_id, step] : st.steps) {
    for (const auto& stalled : step.context->rendezvous()->StalledRecvs(st.stall_warning_after)) {
      if (!step.reported_stalls.insert(stalled.key).second) continue;
      // key: src_device;src_incarnation;dst_device;tensor_name;frame:iteration
      std::vector<std::string> parts;
      for (size_t start = 0;;) {
        const size_t end = stalled.key.find(';', start);
        parts.push_back(stalled.key.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
      }
      std::string line = "step " + std::to_string(step_id) + " on " + st.task_name + ": ";
      if (parts.size() >= 4) {
        line += "the Recv of '" + parts[3] + "' on " + parts[2] + " has waited " +
                std::to_string(static_cast<int>(stalled.seconds)) + " s for " + parts[0];
      } else {
        line += "a Recv of '" + stalled.key + "' has waited " +
                std::to_string(static_cast<int>(stalled.seconds)) + " s";
      }
      ReportStall(StallReporting{st.stall_warning_after, st.stall_log}, line);
    }
  }
  self->delayed_send(self, std::max<std::chrono::milliseconds>(st.stall_warning_after / 4,
                                                               std::chrono::milliseconds(50)),
                     inspect_atom::value);
}

// A tensor from a Send in another process, for a Recv of a step here.
void DeliverPush(WorkerPointer self, const wire::TensorPush& push) {
  if (self->state.finished.Contains(push.step_id)) return;
  WorkerStep& step = GetOrCreateStep(self, push.step_id);
  HandlerScope scope(self);
  NoteDelivery(self->state,
               step.context->rendezvous()->DeliverFromPeer(push.key, push.value, push.is_dead));
}

// Sends what an outbox gathered as one message (actors/worker/push_outbox.h).
void FlushOutbox(WorkerPointer self, uint64_t outbox_id) {
  auto it = self->state.outboxes.find(outbox_id);
  if (it == self->state.outboxes.end()) return;
  std::shared_ptr<PushOutbox> outbox = it->second.lock();
  if (!outbox) {
    self->state.outboxes.erase(it);
    return;
  }
  std::vector<wire::TensorPush> pushes = outbox->Take();
  if (pushes.size() == 1) {
    self->send(outbox->destination(), push_atom::value, std::move(pushes.front()));
  } else if (!pushes.empty()) {
    self->send(outbox->destination(), push_batch_atom::value,
               wire::TensorPushBatch{std::move(pushes)});
  }
}

// The guard of every handler but the handshake's (actors/peer_auth.h).
Status Admit(WorkerPointer self, std::string_view what) {
  return CheckPeer(self, what, !self->state.cluster_secret.empty());
}

void Sweep(WorkerPointer self) {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = self->state.steps.begin(); it != self->state.steps.end();) {
    const bool orphan = !it->second.has_run &&
                        now - it->second.context->created() > kOrphanStepLifetime;
    if (orphan) IncomingTensors::Global().ReleaseStep(it->first);
    it = orphan ? self->state.steps.erase(it) : std::next(it);
  }
  // Outboxes of routers that were replaced or closed with their session.
  std::erase_if(self->state.outboxes, [](const auto& entry) { return entry.second.expired(); });
  self->delayed_send(self, kSweepPeriod, sweep_atom::value);
}

// Fault injection (actors/worker/fault_hooks.h): said once at the start,
// with the seed, so that a run's log tells what it was run under; the
// counts follow now and then and once more when the worker stops.
void StartFaults(WorkerPointer self, const WorkerOptions& options) {
  auto hooks = std::make_shared<FaultHooks>();
  hooks->injector = options.faults;
  hooks->delay_line = std::make_shared<DelayLine>(self->system(), self->address());
  hooks->log = options.fault_log;
  hooks->Log(hooks->injector->Describe());
  self->attach_functor([hooks] { hooks->Log(hooks->injector->CountsLine()); });
  self->state.faults = std::move(hooks);
}

worker_actor::behavior_type WorkerBehavior(WorkerPointer self, WorkerOptions options) {
  WorkerState& st = self->state;
  st.task_name = "/job:" + options.job + "/replica:" + std::to_string(options.replica) +
                 "/task:" + std::to_string(options.task);
  st.incarnation = NewIncarnation();
  st.stall_warning_after = options.stall_warning_after;
  st.stall_log = options.stall_log;
  SetStallReporting(StallReporting{options.stall_warning_after, options.stall_log});
  st.cluster_secret = options.cluster_secret;
  std::string data_address;
  if (options.data_plane) {
    st.data_plane = options.data_plane;
    st.data_plane->Attach(self->address());
    data_address = st.data_plane->address();
    // Its threads end with the worker (routers still held by finishing
    // steps only keep a stopped plane alive).
    self->attach_functor([plane = st.data_plane] { plane->Stop(); });
  }
  if (options.faults) StartFaults(self, options);
  if (st.stall_warning_after.count() > 0) {
    self->delayed_send(self, st.stall_warning_after / 4, inspect_atom::value);
  }
  const int num_devices = std::max(1, options.num_cpu_devices);
  int threads = options.threads_per_device;
  if (threads <= 0) {
    threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / num_devices);
  }
  auto names = std::make_shared<LocalDeviceNames>();
  for (int i = 0; i < num_devices; ++i) {
    DeviceActorOptions device;
    device.name = CanonicalDeviceName(options.job, options.replica, options.task, "CPU", i);
    device.num_threads = threads;
    device.incarnation = st.incarnation;
    device.local_partitions = options.local_partitions;
    st.devices.push_back(
        wire::DeviceInfo{device.name, device.type, device.incarnation, data_address});
    st.device_actors.push_back(SpawnDeviceActor(self, device));
    st.container_actors.push_back(SpawnContainerActor(self, device.name));
    names->push_back(device.name);
  }
  st.local_names = std::move(names);
  if (options.local_partitions) options.local_partitions->set_local_devices(st.local_names);
  self->set_down_handler([=](caf::down_msg& down) {
    std::vector<int64_t> orphaned;
    for (const auto& [id, session] : self->state.sessions) {
      if (session.master.address() == down.source) orphaned.push_back(id);
    }
    for (int64_t id : orphaned) {
      FreeOrphanedSession(self, id, errors::Aborted("the master of session ", id, " went away"));
    }
    // The master's node is gone; if it comes back, it proves the secret
    // again. (CAF 0.17 reports no node loss otherwise: a node that never
    // opened a session stays admitted, in a bounded table.)
    if (down.reason == caf::exit_reason::remote_link_unreachable) ForgetNode(down.source.node());
  });
  self->delayed_send(self, kSweepPeriod, sweep_atom::value);
  if (options.make_master_service) {
    st.master_service =
        options.make_master_service(self->system(), caf::actor_cast<worker_actor>(self));
    self->link_to(st.master_service);  // the service goes when the worker goes
  }
  return {
      [=](list_dev_atom) -> caf::result<std::vector<wire::DeviceInfo>> {
        if (Status s = Admit(self, "ListDevices"); !s.ok()) return ToCafError(s);
        return self->state.devices;
      },
      [=](auth_atom, const wire::AuthHello& hello) {
        return AnswerHello(self, self->state.cluster_secret, hello);
      },
      [=](proof_atom, const wire::AuthProof& proof) {
        return CheckProof(self, self->state.cluster_secret, proof);
      },
      [=](heartbeat_atom, int64_t session_id) -> caf::result<uint64_t> {
        if (Status s = Admit(self, "Heartbeat"); !s.ok()) return ToCafError(s);
        auto session = self->state.sessions.find(session_id);
        if (session != self->state.sessions.end()) {
          session->second.last_heartbeat = std::chrono::steady_clock::now();
        }
        return self->state.incarnation;
      },
      [=](watch_atom) {
        if (Admit(self, "WatchMasters").ok()) WatchMasters(self);
      },
      [=](inspect_atom) {
        if (Admit(self, "InspectStalls").ok()) InspectStalls(self);
      },
      [=](open_sess_atom, OpenSession& req) -> caf::result<wire::WireStatus> {
        if (Status s = Admit(self, "OpenSession"); !s.ok()) return wire::ToWire(s);
        if (!self->state.cluster_secret.empty()) {
          std::vector<caf::actor> peers;
          for (const PeerWorker& peer : req.peers) peers.push_back(peer.worker);
          VouchForPeers(self, peers);
        }
        wire::WireStatus opened = OpenSessionOnWorker(self, req);
        return DialPeersThenAnswer(self, PeersToDial(self->node(), req.peers), std::move(opened));
      },
      [=](close_sess_atom, int64_t session_id) {
        if (!Admit(self, "CloseSession").ok()) return;
        CloseSession(self, session_id, errors::Cancelled("session ", session_id, " closed"));
      },
      [=](reg_graph_atom,
          wire::RegisterGraphRequest& req) -> caf::result<wire::RegisterGraphResponse> {
        if (Status s = Admit(self, "RegisterGraph"); !s.ok()) {
          wire::RegisterGraphResponse refused;
          refused.status = wire::ToWire(s);
          return refused;
        }
        return RegisterGraph(self, req);
      },
      [=](dereg_atom, int64_t session_id, int64_t handle) {
        if (!Admit(self, "DeregisterGraph").ok()) return;
        auto g = self->state.graphs.find(handle);
        if (g == self->state.graphs.end() || g->second.session_id != session_id) return;
        self->send(self->state.device_actors[g->second.device], dereg_atom::value, handle);
        auto session = self->state.sessions.find(session_id);
        if (session != self->state.sessions.end()) session->second.handles.erase(handle);
        self->state.graphs.erase(g);
      },
      [=](run_graph_atom, wire::RunGraphRequest& req) -> caf::result<wire::RunGraphResponse> {
        if (Status s = Admit(self, "RunGraph"); !s.ok()) return ErrorResponse(s);
        return RunGraph(self, req);
      },
      [=](push_atom, wire::TensorPush& push) {
        if (!Admit(self, "TensorPush").ok()) return;
        DeliverPush(self, push);
      },
      [=](push_batch_atom, wire::TensorPushBatch& batch) {
        if (!Admit(self, "TensorPushBatch").ok()) return;
        for (const wire::TensorPush& push : batch.pushes) DeliverPush(self, push);
      },
      [=](flush_atom, uint64_t outbox_id) {
        if (!Admit(self, "Flush").ok()) return;
        FlushOutbox(self, outbox_id);
      },
      [=](chunk_atom, wire::TensorChunk& chunk) -> caf::result<bool> {
        if (Status s = Admit(self, "TensorChunk"); !s.ok()) {
          // The bytes already landed in the step's destination tensor.
          IncomingTensors::Global().Release(chunk.step_id, chunk.key);
          return ToCafError(s);
        }
        return ReceiveChunk(self, chunk);
      },
      [=](abort_step_atom, int64_t step_id, const wire::WireStatus& why) {
        if (!Admit(self, "AbortStep").ok()) return;
        if (self->state.finished.Contains(step_id)) return;
        WorkerStep& step = GetOrCreateStep(self, step_id);
        HandlerScope scope(self);
        step.context->Abort(wire::FromWire(why));
      },
      [=](step_done_atom, int64_t step_id) {
        if (Admit(self, "StepDone").ok()) StepDone(self, step_id);
      },
      [=](sweep_atom) {
        if (Admit(self, "Sweep").ok()) Sweep(self);
      },
      [=](reset_atom, const std::vector<std::string>& containers) -> caf::result<wire::WireStatus> {
        if (Status s = Admit(self, "ResetContainers"); !s.ok()) return wire::ToWire(s);
        return ResetContainers(self, containers);
      },
      [=](list_cont_atom) -> caf::result<std::vector<ContainerListing>> {
        if (Status s = Admit(self, "ListContainers"); !s.ok()) return ToCafError(s);
        return ListContainers(self);
      },
      [=](open_master_atom, wire::MasterSessionRequest& req)
          -> caf::result<wire::WireStatus, caf::actor, std::vector<wire::DeviceInfo>> {
        if (Status s = Admit(self, "OpenMasterSession"); !s.ok()) {
          return {wire::ToWire(s), caf::actor{}, std::vector<wire::DeviceInfo>{}};
        }
        if (!self->state.master_service) {
          return {wire::ToWire(errors::Unimplemented(
                      "Session: ", self->state.task_name,
                      " runs no master service (it is the in-process worker of a client)")),
                  caf::actor{}, std::vector<wire::DeviceInfo>{}};
        }
        return self->delegate(self->state.master_service, open_master_atom::value,
                              std::move(req));
      },
  };
}

}  // namespace

void RecentSteps::Add(int64_t step_id) {
  if (!set_.insert(step_id).second) return;
  order_.push_back(step_id);
  if (order_.size() > kCapacity) {
    set_.erase(order_.front());
    order_.pop_front();
  }
}

worker_actor SpawnWorkerActor(caf::actor_system& system, const WorkerOptions& options) {
  return system.spawn(WorkerBehavior, options);
}

}  // namespace af::actors
