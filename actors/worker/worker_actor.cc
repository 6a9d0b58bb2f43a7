#include "actors/worker/worker_actor.h"

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/system_messages.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/transport/admitted_handler.h"
#include "actors/any_thread_send.h"
#include "actors/health/master_watch.h"
#include "actors/transport/incoming_tensors.h"
#include "actors/health/stall_reporting.h"
#include "actors/transport/peer_auth.h"
#include "actors/transport/wire_handshake.h"
#include "actors/worker/data_plane.h"
#include "actors/worker/fault_hooks.h"
#include "actors/worker/peer_connections.h"
#include "actors/device/container_actor.h"
#include "actors/device/device_actor.h"
#include "actors/worker/worker_handlers.h"
#include "actors/worker/worker_state.h"
#include "core/device_name.h"
#include "core/gpu/gpu_device_context.h"
#include "core/fault_injection/fault_injector.h"

namespace af::actors {
namespace {

// A request only a server's master service answers, sent to the in-process
// worker of a client, which has none.
wire::WireStatus NoMasterService(const WorkerState& st, std::string_view what) {
  return wire::ToWire(errors::FailedPrecondition(
      what, ": ", st.task_name, " runs no master service (it is the in-process worker of a "
      "client)"));
}

uint64_t NewIncarnation() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  uint64_t value = 0;
  while (value == 0) value = gen();
  return value;
}

// The guard of every handler but the handshake's (actors/transport/peer_auth.h).
Status Admit(WorkerPointer self, std::string_view what) {
  return CheckPeer(self, what, !self->state.cluster_secret.empty());
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
  st.max_step = options.max_step;
  st.session_memory_limit = options.session_memory_limit;
  // The executors the device actors build, published for the direct
  // step path (and, in a client, for its in-process fast path).
  if (!options.local_partitions) options.local_partitions = std::make_shared<LocalPartitionTable>();
  std::string data_address;
  if (options.data_plane) {
    st.data_plane = options.data_plane;
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
  auto add_device = [&](const DeviceType& type, int index, int num_threads) {
    DeviceActorOptions device;
    device.name = CanonicalDeviceName(options.job, options.replica, options.task, type, index);
    device.type = type;
    if (type == DEVICE_GPU) device.gpu_ordinal = index;
    device.num_threads = num_threads;
    device.incarnation = st.incarnation;
    device.local_partitions = options.local_partitions;
    st.devices.push_back(
        wire::DeviceInfo{device.name, device.type, device.incarnation, data_address});
    st.device_actors.push_back(SpawnDeviceActor(self, device));
    st.container_actors.push_back(SpawnContainerActor(self, device.name));
    names->push_back(device.name);
  };
  for (int i = 0; i < num_devices; ++i) add_device(DEVICE_CPU, i, threads);
  // A GPU's pool runs host-side kernels only; its streams do the work.
  const int num_gpus = gpu::ProcessGpusToUse(options.num_gpu_devices);
  for (int i = 0; i < num_gpus; ++i) add_device(DEVICE_GPU, i, 2);
  st.local_names = std::move(names);
  options.local_partitions->set_local_devices(st.local_names);
  st.registry = std::make_shared<StepRegistry>(st.task_name, st.local_names);
  st.direct = std::make_shared<DirectSteps>(st.task_name, st.incarnation, st.registry,
                                            options.local_partitions, self->address());
  if (st.data_plane) {
    st.direct->set_data_plane(st.data_plane);
    st.data_plane->Attach(self->address(), st.registry, st.direct);
    if (options.direct_path) {
      options.direct_path->Set(std::make_shared<const LocalDirectPath>(
          LocalDirectPath{st.registry, st.direct, st.data_plane}));
    }
  }
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
  // A stopping server (SIGTERM) cancels its running steps, which end at
  // their next node instead of keeping the process alive.
  self->set_exit_handler([=](caf::exit_msg& exit) {
    if (!exit.reason) return;
    HandlerScope scope(self);
    const Status why = errors::Cancelled("the server ", self->state.task_name, " is stopping");
    self->state.registry->AbortAll(why);
    self->quit(exit.reason);
  });
  self->delayed_send(self, kSweepPeriod, sweep_atom::value);
  if (options.make_master_service) {
    st.master_service =
        options.make_master_service(self->system(), caf::actor_cast<worker_actor>(self));
    self->link_to(st.master_service);  // the service goes when the worker goes
  }
  const auto admit = [self](std::string_view what) { return Admit(self, what); };
  return {
      Admitted(admit, "ListDevices",
               [=](list_dev_atom) -> caf::result<std::vector<wire::DeviceInfo>> {
                 return self->state.devices;
               }),
      [=](version_atom, uint32_t wire,
          const std::string& library) -> caf::result<uint32_t, std::string> {
        auto [own_wire, own_library] = AnswerVersion(self, wire, library);
        return {own_wire, std::move(own_library)};
      },
      [=](auth_atom, const wire::AuthHello& hello) {
        return AnswerHello(self, self->state.cluster_secret, hello);
      },
      [=](proof_atom, const wire::AuthProof& proof) {
        return CheckProof(self, self->state.cluster_secret, proof);
      },
      Admitted(admit, "Heartbeat",
               [=](heartbeat_atom, int64_t session_id) -> caf::result<uint64_t> {
                 auto session = self->state.sessions.find(session_id);
                 if (session != self->state.sessions.end()) {
                   session->second.last_heartbeat = std::chrono::steady_clock::now();
                 }
                 return self->state.incarnation;
               }),
      Admitted(admit, "WatchMasters", [=](watch_atom) { WatchMasters(self); }),
      Admitted(admit, "InspectStalls", [=](inspect_atom) { InspectStalls(self); }),
      Admitted(admit, "OpenSession",
               [=](open_sess_atom, OpenSession& req) -> caf::result<wire::WireStatus> {
                 // Secret or not: the peers' version is the master's word too.
                 std::vector<caf::actor> peers;
                 for (const PeerWorker& peer : req.peers) peers.push_back(peer.worker);
                 VouchForPeers(self, peers);
                 wire::WireStatus opened = OpenSessionOnWorker(self, req);
                 return DialPeersThenAnswer(self, PeersToDial(self->node(), req.peers),
                                            std::move(opened));
               }),
      Admitted(admit, "CloseSession",
               [=](close_sess_atom, int64_t session_id) {
                 CloseSession(self, session_id,
                              errors::Cancelled("session ", session_id, " closed"));
               }),
      Admitted(admit, "RegisterGraph",
               [=](reg_graph_atom,
                   wire::RegisterGraphRequest& req) -> caf::result<wire::RegisterGraphResponse> {
                 return RegisterGraph(self, req);
               }),
      Admitted(admit, "DeregisterGraph",
               [=](dereg_atom, int64_t session_id, int64_t handle) {
                 auto g = self->state.graphs.find(handle);
                 if (g == self->state.graphs.end() || g->second.session_id != session_id) return;
                 self->send(self->state.device_actors[g->second.device], dereg_atom::value, handle);
                 auto session = self->state.sessions.find(session_id);
                 if (session != self->state.sessions.end()) session->second.handles.erase(handle);
                 self->state.graphs.erase(g);
               }),
      Admitted(admit, "RunGraph",
               [=](run_graph_atom, wire::RunGraphRequest& req)
                   -> caf::result<wire::RunGraphResponse> { return RunGraph(self, req); }),
      Admitted(admit, "DirectRunGraph",
               [=](direct_run_atom, uint64_t correlation, wire::RunGraphRequest& req) {
                 RunDirectGraph(self, correlation, req);
               }),
      Admitted(admit, "TensorPush",
               [=](push_atom, wire::TensorPush& push) { DeliverPush(self, push); }),
      Admitted(admit, "TensorPushBatch",
               [=](push_batch_atom, wire::TensorPushBatch& batch) {
                 for (const wire::TensorPush& push : batch.pushes) DeliverPush(self, push);
               }),
      Admitted(admit, "Flush",
               [=](flush_atom, uint64_t outbox_id) { FlushOutbox(self, outbox_id); }),
      Admitted(admit, "TensorChunk",
               [=](chunk_atom, wire::TensorChunk& chunk) -> caf::result<bool> {
                 return ReceiveChunk(self, chunk);
               }),
      Admitted(admit, "AbortStep",
               [=](abort_step_atom, int64_t step_id, const wire::WireStatus& why) {
                 HandlerScope scope(self);
                 self->state.registry->Abort(step_id, wire::FromWire(why));
               }),
      Admitted(admit, "StepDone",
               [=](step_done_atom, int64_t step_id) { StepDone(self, step_id); }),
      Admitted(admit, "Sweep", [=](sweep_atom) { Sweep(self); }),
      Admitted(admit, "ResetContainers",
               [=](reset_atom, const std::vector<std::string>& containers)
                   -> caf::result<wire::WireStatus> { return ResetContainers(self, containers); }),
      Admitted(admit, "ListContainers",
               [=](list_cont_atom) -> caf::result<std::vector<ContainerListing>> {
                 return ListContainers(self);
               }),
      Admitted(admit, "OpenMasterSession",
               [=](open_master_atom, wire::MasterSessionRequest& req)
                   -> caf::result<wire::WireStatus, caf::actor, std::vector<wire::DeviceInfo>> {
                 if (!self->state.master_service) {
                   return {NoMasterService(self->state, "Session"), caf::actor{},
                           std::vector<wire::DeviceInfo>{}};
                 }
                 return self->delegate(self->state.master_service, open_master_atom::value,
                                       std::move(req));
               }),
      Admitted(admit, "JoinCluster",
               [=](join_atom, std::string& job, std::string& address)
                   -> caf::result<wire::WireStatus, std::vector<std::string>,
                                  std::vector<std::string>, int32_t> {
                 if (!self->state.master_service) {
                   return {NoMasterService(self->state, "JoinCluster"),
                           std::vector<std::string>{}, std::vector<std::string>{}, -1};
                 }
                 return self->delegate(self->state.master_service, join_atom::value,
                                       std::move(job), std::move(address));
               }),
      Admitted(admit, "ClusterMembers",
               [=](cluster_atom, std::vector<std::string>& names,
                   std::vector<std::string>& addresses) {
                 if (self->state.master_service) {
                   self->send(self->state.master_service, cluster_atom::value, std::move(names),
                              std::move(addresses));
                 }
               }),
  };
}

}  // namespace

worker_actor SpawnWorkerActor(caf::actor_system& system, const WorkerOptions& options) {
  return system.spawn(WorkerBehavior, options);
}

}  // namespace af::actors
