#include "actors/master/master_actor.h"

#include <algorithm>
#include <random>
#include <tuple>

#include <caf/actor_system.hpp>
#include <caf/sec.hpp>
#include <caf/system_messages.hpp>

#include "actors/health/master_health.h"
#include "actors/master/master_state.h"
#include "actors/worker/data_plane.h"
#include "control-flow/frame_analysis.h"
#include "graph/function_library.h"
#include "graph/graph_def_import.h"

namespace af::actors {
namespace {

using Clock = Completion::Clock;

int64_t RandomId() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  // Positive and far from the range a counter reaches: step ids of
  // different sessions sharing a worker never meet.
  return static_cast<int64_t>(gen() >> 2) + 1;
}

caf::duration TimeLeft(const ClientCall& call) {
  const auto left =
      std::chrono::duration_cast<std::chrono::microseconds>(call.deadline - Clock::now());
  return caf::duration(std::max(left, std::chrono::microseconds(1)));
}

// Shared progress of a fan-out to every worker.
struct FanOut {
  int pending = 0;
  bool failed = false;
};

}  // namespace

OpenSession SessionOpening(MasterPointer self) {
  MasterState& st = self->state;
  OpenSession open;
  open.session_id = st.session_id;
  open.master = caf::actor_cast<caf::actor>(self);
  open.master_lost_after_ms =
      std::max<std::chrono::milliseconds>(std::chrono::seconds(10), 4 * st.health.lost_after)
          .count();
  // A worker of this process advertising a wildcard data address is
  // reached at this host's address toward the first remote task.
  std::string first_remote;
  for (const WorkerRecord& record : st.workers) {
    if (record.worker.remote && first_remote.empty()) first_remote = record.worker.address;
  }
  for (WorkerRecord& record : st.workers) {
    PeerWorker peer;
    peer.worker = caf::actor_cast<caf::actor>(record.worker.handle);
    for (const wire::DeviceInfo& d : record.devices) peer.devices.push_back(d.name);
    if (!record.devices.empty()) {
      peer.data_address =
          PeerDataAddress(record.devices.front().data_address,
                          record.worker.remote ? record.worker.address : "", first_remote);
    }
    // The direct step path: requests go to each remote worker's data
    // plane, replies come back to this process's.
    if (record.worker.remote) {
      peer.address = record.worker.address;
      record.lane_address = peer.data_address;
      if (st.lane && !record.lane_address.empty()) st.lane->Prepare(record.lane_address);
    } else {
      st.reply_address = peer.data_address;
    }
    open.peers.push_back(std::move(peer));
  }
  return open;
}

namespace {

void OpenSessions(MasterPointer self, std::shared_ptr<InitCall> call) {
  MasterState& st = self->state;
  for (size_t w = 0; w < st.workers.size(); ++w) {
    for (const wire::DeviceInfo& d : st.workers[w].devices) {
      auto [it, inserted] = st.device_worker.emplace(d.name, static_cast<int>(w));
      if (!inserted) {
        return call->Finish(errors::InvalidArgument(
            "Session: device '", d.name, "' is offered by both worker ",
            st.workers[it->second].worker.address, " and worker ", st.workers[w].worker.address));
      }
      st.devices.push_back(DeviceAttributes{d.name, d.type, d.incarnation});
    }
  }
  OpenSession open = SessionOpening(self);
  const int64_t master_lost_after_ms = open.master_lost_after_ms;
  auto progress = std::make_shared<FanOut>();
  progress->pending = static_cast<int>(st.workers.size());
  const caf::duration timeout = TimeLeft(*call);
  for (size_t w = 0; w < st.workers.size(); ++w) {
    const std::string address = st.workers[w].worker.address;
    open.incarnation = st.workers[w].incarnation;
    open.master_lost_after_ms = st.workers[w].worker.remote ? master_lost_after_ms : 0;
    self->request(st.workers[w].worker.handle, timeout, open_sess_atom::value, open)
        .then(
            [=](wire::WireStatus& status) {
              Status s = wire::FromWire(status);
              if (progress->failed) return;
              if (!s.ok()) {
                progress->failed = true;
                return call->Finish(s.WithContext("Session: opening on worker " + address));
              }
              if (--progress->pending > 0) return;
              self->state.ready = true;
              StartHeartbeats(self);
              call->devices = self->state.devices;
              call->Finish(Status::OK());
            },
            [=](caf::error& err) {
              if (progress->failed) return;
              progress->failed = true;
              call->Finish(
                  errors::Unavailable("Session: worker ", address,
                                      " did not open the session: ", self->system().render(err)));
            });
  }
}

void Init(MasterPointer self, std::shared_ptr<InitCall> call) {
  MasterState& st = self->state;
  auto progress = std::make_shared<FanOut>();
  progress->pending = static_cast<int>(st.workers.size());
  const caf::duration timeout = TimeLeft(*call);
  for (size_t w = 0; w < st.workers.size(); ++w) {
    if (st.workers[w].worker.remote) self->monitor(st.workers[w].worker.handle);
    const std::string address = st.workers[w].worker.address;
    self->request(st.workers[w].worker.handle, timeout, list_dev_atom::value)
        .then(
            [=](std::vector<wire::DeviceInfo>& devices) {
              if (progress->failed) return;
              WorkerRecord& record = self->state.workers[w];
              if (!devices.empty()) {
                const std::string& first = devices.front().name;
                record.task = first.substr(0, first.find("/device:"));
                record.incarnation = devices.front().incarnation;
              }
              if (record.worker.remote && !record.task.empty()) {
                record.heartbeat_gauge = metrics::HeartbeatTimes()->Register(record.task);
              }
              record.Heard(Clock::now());
              record.devices = std::move(devices);
              if (--progress->pending == 0) OpenSessions(self, call);
            },
            [=](caf::error& err) {
              if (progress->failed) return;
              progress->failed = true;
              call->Finish(
                  errors::Unavailable("Session: worker ", address,
                                      " did not list its devices: ", self->system().render(err)));
            });
  }
}

Status Extend(MasterState& st, const tensorflow::GraphDef& addition) {
  std::unordered_set<std::string> added;
  for (const tensorflow::NodeDef& node : addition.node()) {
    if (st.node_names.count(node.name()) != 0) {
      return errors::InvalidArgument("Extend: node '", node.name(), "' (", node.op(),
                                     ") already exists in the session graph");
    }
    if (!added.insert(node.name()).second) {
      return errors::InvalidArgument("Extend: node '", node.name(), "' (", node.op(),
                                     ") appears twice in the graph");
    }
  }
  tensorflow::GraphDef merged = st.graph;
  for (const tensorflow::NodeDef& node : addition.node()) *merged.add_node() = node;
  if (addition.has_versions()) merged.mutable_versions()->MergeFrom(addition.versions());
  // By name: clients send their whole library with every Extend.
  Status merge = MergeFunctionLibrary(addition.library(), merged.mutable_library());
  if (!merge.ok()) return merge.WithContext("Extend");
  auto imported = std::make_unique<Graph>();
  Status s = ImportGraphDef(merged, imported.get());
  if (!s.ok()) return s.WithContext("Extend");
  // A malformed loop fails here, naming both nodes and frames, rather than
  // at the first Run (or as a step that never ends).
  s = ValidateFrames(*imported);
  if (!s.ok()) return s.WithContext("Extend");
  st.graph = std::move(merged);
  st.imported = std::move(imported);
  st.node_names.insert(added.begin(), added.end());
  return Status::OK();
}

// Resets or lists containers on every live worker (a dead worker's
// containers went away with its process).
void Containers(MasterPointer self, std::shared_ptr<ContainerCall> call) {
  MasterState& st = self->state;
  const std::string what = call->list ? "ListContainers" : "Reset";
  if (st.closed) return call->Finish(errors::FailedPrecondition(what, ": the session is closed"));
  auto progress = std::make_shared<FanOut>();
  for (const WorkerRecord& w : st.workers) progress->pending += w.alive ? 1 : 0;
  auto one_done = [=] {
    if (--progress->pending > 0) return;
    std::sort(call->listing.begin(), call->listing.end(),
              [](const ContainerListing& a, const ContainerListing& b) {
                return std::tie(a.device, a.container) < std::tie(b.device, b.container);
              });
    call->Finish(Status::OK());
  };
  if (progress->pending == 0) return call->Finish(Status::OK());
  const caf::duration timeout = TimeLeft(*call);
  for (const WorkerRecord& w : st.workers) {
    if (!w.alive) continue;
    const std::string address = w.worker.address;
    auto fail = [=](caf::error& err) {
      if (progress->failed) return;
      progress->failed = true;
      const std::string why = self->system().render(err);
      call->Finish(err == caf::sec::request_timeout
                       ? errors::DeadlineExceeded(what, ": worker ", address,
                                                  " did not answer before the deadline")
                       : errors::Unavailable(what, ": worker ", address, " failed: ", why));
    };
    if (call->list) {
      self->request(w.worker.handle, timeout, list_cont_atom::value)
          .then(
              [=](std::vector<ContainerListing>& listing) {
                if (progress->failed) return;
                for (ContainerListing& l : listing) call->listing.push_back(std::move(l));
                one_done();
              },
              fail);
    } else {
      self->request(w.worker.handle, timeout, reset_atom::value, call->containers)
          .then(
              [=](wire::WireStatus& status) {
                if (progress->failed) return;
                Status s = wire::FromWire(status);
                if (!s.ok()) {
                  progress->failed = true;
                  return call->Finish(s.WithContext("Reset on worker " + address));
                }
                one_done();
              },
              fail);
    }
  }
}

void Close(MasterPointer self) {
  MasterState& st = self->state;
  if (st.closed) return;
  st.closed = true;
  const Status why = errors::Cancelled("Run: the session was closed");
  std::vector<int64_t> running;
  for (const auto& [step_id, flight] : st.inflight) running.push_back(step_id);
  for (int64_t step_id : running) FailStep(self, step_id, why);
  for (auto& [key, step] : st.cache) {
    for (auto& call : step->waiting) call->Finish(why);
    step->waiting.clear();
  }
  st.cache.clear();
  if (st.local_plans) st.local_plans->Clear();
  for (const WorkerRecord& w : st.workers) {
    if (w.alive) self->send(w.worker.handle, close_sess_atom::value, st.session_id);
  }
}

master_actor::behavior_type MasterBehavior(MasterPointer self, std::vector<MasterWorker> workers,
                                           std::shared_ptr<LocalPlanCache> local_plans,
                                           HealthCheckOptions health, std::string cluster_secret,
                                           std::shared_ptr<DataPlane> lane,
                                           OptimizerOptions optimizer) {
  MasterState& st = self->state;
  st.optimizer = optimizer;
  if (lane && lane->direct()) st.lane = std::move(lane);
  st.local_plans = std::move(local_plans);
  st.health = health;
  st.cluster_secret = std::move(cluster_secret);
  st.session_id = RandomId();
  st.next_step_id = RandomId();
  for (MasterWorker& w : workers) {
    WorkerRecord record;
    record.worker = std::move(w);
    st.workers.push_back(std::move(record));
  }
  self->set_down_handler([=](caf::down_msg& down) {
    for (size_t w = 0; w < self->state.workers.size(); ++w) {
      const WorkerRecord& record = self->state.workers[w];
      if (record.worker.handle.address() != down.source) continue;
      WorkerLost(self, static_cast<int>(w),
                 errors::Unavailable(record.Describe(), ": connection lost (",
                                     self->system().render(down.reason), ")"));
    }
  });
  return {
      [=](init_atom, const std::shared_ptr<InitCall>& call) { Init(self, call); },
      [=](extend_atom, const std::shared_ptr<ExtendCall>& call) {
        if (self->state.closed) {
          return call->Finish(errors::FailedPrecondition("Extend: the session is closed"));
        }
        call->Finish(Extend(self->state, call->graph));
      },
      [=](run_atom, const std::shared_ptr<RunCall>& call) { RunStep(self, call); },
      [=](close_atom, const std::shared_ptr<CloseCall>& call) {
        Close(self);
        call->Finish(Status::OK());
      },
      [=](containers_atom, const std::shared_ptr<ContainerCall>& call) { Containers(self, call); },
      [=](heartbeat_atom) { Heartbeat(self); },
      [=](direct_reply_atom, uint64_t correlation, wire::RunGraphResponse& response) {
        OnDirectReply(self, correlation, response);
      },
      [=](stats_atom, const std::shared_ptr<StatsCall>& call) {
        const MasterState& st = self->state;
        call->stats.graph_nodes = st.graph.node_size();
        call->stats.cached_steps = static_cast<int64_t>(st.cache.size());
        call->stats.local_plans = st.local_plans ? st.local_plans->size() : 0;
        call->stats.steps_in_flight = static_cast<int64_t>(st.inflight.size());
        call->Finish(Status::OK());
      },
  };
}

}  // namespace

master_actor SpawnMasterActor(caf::actor_system& system, std::vector<MasterWorker> workers,
                              std::shared_ptr<LocalPlanCache> local_plans,
                              HealthCheckOptions health, std::string cluster_secret,
                              std::shared_ptr<DataPlane> lane, OptimizerOptions optimizer) {
  return system.spawn(MasterBehavior, std::move(workers), std::move(local_plans), health,
                      std::move(cluster_secret), std::move(lane), optimizer);
}

}  // namespace af::actors
