// The master's run path: signature -> cached plan (built and registered on
// a miss) -> one RunGraph per participating worker -> fetches.
#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/sec.hpp>
#include <caf/send.hpp>

#include "actors/transport/caf_status.h"
#include "actors/health/health_events.h"
#include "actors/health/master_health.h"
#include "actors/master/master_state.h"
#include "graph/optimizer_trace.h"
#include "actors/transport/lane_replies.h"
#include "actors/transport/wire_codec.h"
#include "actors/worker/data_plane.h"
#include "core/net/lane_message.h"

namespace af::actors {
namespace {

using Clock = Completion::Clock;

// The master's side of feeds and fetches in a step's traffic: the task of
// the worker in its own process, or "client".
std::string_view MasterTask(const MasterState& st) {
  for (const WorkerRecord& w : st.workers)
    if (!w.worker.remote && !w.task.empty()) return w.task;
  return "client";
}

std::string CacheKey(const RunCall& call) {
  return StepCacheKey(call.feeds, call.fetches, call.targets);
}

// The measured runs (a partition's 2nd and 3rd, see the device actor) and
// the first go through the workers; later ones may run on the client's
// thread.
constexpr int kMessagePathRuns = 3;

// Publishes `step` for the client's threads when its partitions are on the
// in-process worker, or on remote workers the direct step path reaches
// (actors/remote_step.h).
void MaybePublishLocal(MasterState& st, const CachedStep& step) {
  if (!st.local_plans || step.groups.empty()) return;
  auto plan = std::make_shared<LocalPlan>();
  plan->session_id = st.session_id;
  std::vector<int> remote_of(step.groups.size(), -1);  // group -> plan->remotes index
  int local = -1;
  for (size_t g = 0; g < step.groups.size(); ++g) {
    const CachedStep::Group& group = step.groups[g];
    const WorkerRecord& w = st.workers[group.worker];
    if (group.num_retvals.size() != group.handles.size()) return;
    if (!w.worker.remote) {
      if (local >= 0) return;
      local = static_cast<int>(g);
      continue;
    }
    if (!st.lane || st.reply_address.empty() || w.lane_address.empty()) return;
    remote_of[g] = static_cast<int>(plan->remotes.size());
    plan->remotes.push_back(
        LocalPlan::Remote{w.lane_address, w.task, w.incarnation, group.handles, group.num_args});
  }
  if (local >= 0) {
    const CachedStep::Group& g = step.groups[local];
    for (size_t p = 0; p < g.handles.size(); ++p)
      plan->partitions.push_back(
          LocalPlan::Partition{g.handles[p], g.num_args[p], g.num_retvals[p]});
  }
  for (const FeedRoute& route : step.feeds) {
    const bool here = route.group >= 0 && route.group == local;
    plan->feeds.push_back(LocalPlan::Place{here ? route.partition : -1, route.arg});
    plan->remote_feeds.push_back(LocalPlan::RemotePlace{
        route.group < 0 ? -1 : remote_of[route.group], route.partition, route.arg});
  }
  plan->fetches.resize(step.fetch_from_feed.size());
  plan->remote_fetches.resize(step.fetch_from_feed.size());
  for (size_t g = 0; g < step.groups.size(); ++g) {
    for (const FetchRoute& route : step.groups[g].fetches) {
      if (static_cast<int>(g) == local) {
        plan->fetches[route.fetch] = LocalPlan::Place{route.partition, route.retval};
      } else {
        plan->remote_fetches[route.fetch] =
            LocalPlan::RemotePlace{remote_of[g], route.partition, route.retval};
      }
    }
  }
  plan->fetch_from_feed = step.fetch_from_feed;
  st.local_plans->Publish(step.key, std::move(plan));
}

std::string_view NodeOf(std::string_view tensor) {
  const size_t colon = tensor.rfind(':');
  if (colon == std::string_view::npos) return tensor;
  const std::string_view port = tensor.substr(colon + 1);
  const bool numeric = !port.empty() && std::all_of(port.begin(), port.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
  return numeric ? tensor.substr(0, colon) : tensor;
}

// Names that cannot be resolved, reported the way TensorFlow users expect.
Status CheckNames(const MasterState& st, const RunCall& call) {
  std::unordered_set<std::string_view> fed;
  for (const auto& [name, value] : call.feeds) {
    if (!fed.insert(name).second) {
      return errors::InvalidArgument("Run: '", name, "' is fed more than once");
    }
    if (st.node_names.count(std::string(NodeOf(name))) == 0) {
      return errors::InvalidArgument("Run: feed '", name,
                                     "' names no node of the session graph");
    }
  }
  for (const std::string& name : call.fetches) {
    if (st.node_names.count(std::string(NodeOf(name))) == 0) {
      return errors::InvalidArgument("Run: fetch '", name,
                                     "' names no node of the session graph");
    }
  }
  for (const std::string& name : call.targets) {
    if (st.node_names.count(name) == 0) {
      return errors::InvalidArgument("Run: target '", name,
                                     "' names no node of the session graph");
    }
  }
  return Status::OK();
}

Status ErrorFromCaf(MasterPointer self, const caf::error& err, const WorkerRecord& worker,
                    std::string_view what) {
  return FromCafError(self->system(), err,
                      std::string(what) + ": worker " + worker.worker.address);
}

caf::duration TimeLeft(const RunCall& call) {
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
      call.deadline - Clock::now());
  return caf::duration(std::max(left, std::chrono::microseconds(1)));
}

// Lays out groups and routes for `plan` (computed once per signature).
Status PrepareStep(MasterState& st, const RunCall& call, const StepPlan& plan,
                   CachedStep* step, std::vector<int>* partition_group,
                   std::vector<int>* partition_pos) {
  partition_group->assign(plan.partitions.size(), -1);
  partition_pos->assign(plan.partitions.size(), -1);
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    auto w = st.device_worker.find(plan.partitions[p].device);
    if (w == st.device_worker.end()) {
      return errors::Internal("Run: the plan put a partition on unknown device '",
                              plan.partitions[p].device, "'");
    }
    int group = -1;
    for (size_t g = 0; g < step->groups.size(); ++g) {
      if (step->groups[g].worker == w->second) group = static_cast<int>(g);
    }
    if (group < 0) {
      group = static_cast<int>(step->groups.size());
      step->groups.emplace_back();
      step->groups.back().worker = w->second;
    }
    CachedStep::Group& g = step->groups[group];
    (*partition_group)[p] = group;
    (*partition_pos)[p] = static_cast<int>(g.handles.size());
    g.handles.push_back(0);
    g.num_args.push_back(plan.partitions[p].num_args);
    g.num_retvals.push_back(0);
  }
  if (plan.feeds.size() != call.feeds.size() || plan.fetches.size() != call.fetches.size()) {
    return errors::Internal("Run: the plan maps ", plan.feeds.size(), " feeds and ",
                            plan.fetches.size(), " fetches for a call with ",
                            call.feeds.size(), " and ", call.fetches.size());
  }
  auto valid = [&](const TensorLocation& loc) {
    return loc.partition >= 0 && loc.partition < static_cast<int>(plan.partitions.size()) &&
           loc.index >= 0;
  };
  step->feeds.resize(plan.feeds.size());
  for (size_t i = 0; i < plan.feeds.size(); ++i) {
    const TensorLocation& loc = plan.feeds[i];
    if (!valid(loc)) continue;  // fed but not needed by this step
    if (loc.index >= plan.partitions[loc.partition].num_args) {
      return errors::Internal("Run: feed '", call.feeds[i].first, "' maps to _Arg ",
                              loc.index, " of a partition with ",
                              plan.partitions[loc.partition].num_args);
    }
    step->feeds[i] = FeedRoute{(*partition_group)[loc.partition],
                               (*partition_pos)[loc.partition], loc.index};
  }
  step->fetch_from_feed.assign(call.fetches.size(), -1);
  for (size_t i = 0; i < plan.fetches.size(); ++i) {
    const TensorLocation& loc = plan.fetches[i];
    if (!valid(loc)) {
      for (size_t f = 0; f < call.feeds.size(); ++f) {
        if (call.feeds[f].first == call.fetches[i]) step->fetch_from_feed[i] = static_cast<int>(f);
      }
      if (step->fetch_from_feed[i] < 0) {
        return errors::Internal("Run: the plan has no source for fetch '", call.fetches[i], "'");
      }
      continue;
    }
    step->groups[(*partition_group)[loc.partition]].fetches.push_back(
        FetchRoute{static_cast<int>(i), (*partition_pos)[loc.partition], loc.index});
  }
  return Status::OK();
}

void Dispatch(MasterPointer self, const std::shared_ptr<CachedStep>& step,
              std::shared_ptr<RunCall> call);

// Adds a worker's per-device traces to the step's StepStats: one
// DeviceStepStats per device, whichever worker and partition it came from.
Status MergeTraces(const wire::RunGraphResponse& response, tensorflow::StepStats* out) {
  for (const wire::PartitionResult& partition : response.partitions) {
    if (partition.step_stats.empty()) continue;
    tensorflow::DeviceStepStats device;
    if (!device.ParseFromString(partition.step_stats)) {
      return errors::Internal("returned a step trace that is not a DeviceStepStats");
    }
    tensorflow::DeviceStepStats* merged = nullptr;
    for (tensorflow::DeviceStepStats& existing : *out->mutable_dev_stats()) {
      if (existing.device() == device.device()) merged = &existing;
    }
    if (merged == nullptr) {
      out->add_dev_stats()->Swap(&device);
    } else {
      merged->MergeFrom(device);
    }
  }
  return Status::OK();
}

void RegistrationDone(MasterPointer self, const std::string& key,
                      const std::shared_ptr<CachedStep>& step) {
  if (--step->pending_registrations > 0) return;
  std::vector<std::shared_ptr<RunCall>> waiting = std::move(step->waiting);
  if (!step->error.ok()) {
    auto it = self->state.cache.find(key);
    if (it != self->state.cache.end() && it->second == step) self->state.cache.erase(it);
    for (const auto& group : step->groups) {
      const WorkerRecord& w = self->state.workers[group.worker];
      for (int64_t handle : group.handles) {
        if (handle != 0 && w.alive) {
          self->send(w.worker.handle, dereg_atom::value, self->state.session_id, handle);
        }
      }
    }
    for (auto& call : waiting) call->Finish(step->error);
    return;
  }
  step->ready = true;
  for (auto& call : waiting) Dispatch(self, step, std::move(call));
}

// Builds the plan for a new signature and registers its partitions; the
// call (and any that arrive meanwhile) run once registration completes.
void BuildAndRegister(MasterPointer self, const std::string& key,
                      std::shared_ptr<RunCall> call) {
  MasterState& st = self->state;
  Status s = CheckNames(st, *call);
  if (!s.ok()) return call->Finish(s);
  StepSignature signature;
  for (const auto& feed : call->feeds) signature.feeds.push_back(feed.first);
  signature.fetches = call->fetches;
  signature.targets = call->targets;
  // Devices of dead workers are left out, so that nodes free to go
  // anywhere land on live ones.
  std::vector<DeviceAttributes> devices;
  std::string down;
  for (const DeviceAttributes& d : st.devices) {
    const WorkerRecord& w = st.workers[st.device_worker.at(d.name)];
    if (w.alive) {
      devices.push_back(d);
    } else if (down.find(w.worker.address) == std::string::npos) {
      // The reason names the task and its address.
      down += (down.empty() ? "" : "; ") + w.lost.message();
    }
  }
  StepPlan plan;
  s = BuildStepPlan(*st.imported, signature, devices, &st.cost_model, &plan, st.optimizer);
  if (!s.ok() && !down.empty()) {
    s = errors::Unavailable("Run: ", down, "; placing without it: ", s.message());
  }
  if (!s.ok()) return call->Finish(s);
  auto step = std::make_shared<CachedStep>();
  step->key = key;
  std::vector<int> partition_group, partition_pos;
  s = PrepareStep(st, *call, plan, step.get(), &partition_group, &partition_pos);
  if (!s.ok()) return call->Finish(s);
  step->optimizer_passes = plan.optimizer_passes;
  for (const auto& group : step->groups) {
    const WorkerRecord& w = st.workers[group.worker];
    if (!w.alive) return call->Finish(errors::Unavailable("Run: ", w.Describe(), " is down: ", w.lost.message()));
  }
  step->waiting.push_back(std::move(call));
  if (plan.partitions.empty()) {
    step->pending_registrations = 1;
    st.cache[key] = step;
    return RegistrationDone(self, key, step);
  }
  step->pending_registrations = static_cast<int>(plan.partitions.size());
  st.cache[key] = step;
  const caf::duration timeout = TimeLeft(*step->waiting.front());
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const int group = partition_group[p];
    const int pos = partition_pos[p];
    const int worker = step->groups[group].worker;
    wire::RegisterGraphRequest req;
    req.session_id = st.session_id;
    req.incarnation = st.workers[worker].incarnation;
    req.device = plan.partitions[p].device;
    if (!plan.partitions[p].graph.SerializeToString(&req.graph_def)) {
      step->error.Update(errors::Internal("Run: cannot serialize the partition for ", req.device));
      RegistrationDone(self, key, step);
      continue;
    }
    self->request(st.workers[worker].worker.handle, timeout, reg_graph_atom::value,
                  std::move(req))
        .then(
            [=](wire::RegisterGraphResponse& response) {
              Status rs = wire::FromWire(response.status);
              if (rs.ok()) {
                step->groups[group].handles[pos] = response.handle;
                step->groups[group].num_retvals[pos] = response.num_retvals;
                if (response.num_args != step->groups[group].num_args[pos]) {
                  rs = errors::Internal("Run: worker counted ", response.num_args,
                                        " _Arg nodes in a partition planned with ",
                                        step->groups[group].num_args[pos]);
                }
              }
              step->error.Update(rs);
              RegistrationDone(self, key, step);
            },
            [=](caf::error& err) {
              step->error.Update(ErrorFromCaf(self, err, self->state.workers[worker],
                                              "RegisterGraph"));
              RegistrationDone(self, key, step);
            });
  }
}

void OnRunGraphReply(MasterPointer self, int64_t step_id, int group,
                     wire::RunGraphResponse& response) {
  auto it = self->state.inflight.find(step_id);
  if (it == self->state.inflight.end()) return;  // already failed
  InFlightStep& flight = it->second;
  Status s = wire::FromWire(response.status);
  if (!s.ok()) return FailStep(self, step_id, s);
  const CachedStep::Group& g = flight.step->groups[group];
  MergeTraffic(&flight.call->traffic, response.sent);
  if (const WorkerRecord& w = self->state.workers[g.worker]; w.worker.remote) {
    uint64_t bytes = 0, tensors = 0;
    for (const wire::PartitionResult& partition : response.partitions) {
      for (const Tensor& t : partition.retvals) bytes += PayloadBytes(t);
      tensors += partition.retvals.size();
    }
    if (tensors > 0) {
      AddTraffic(&flight.call->traffic, w.task, MasterTask(self->state), bytes, tensors);
    }
  }
  std::vector<Tensor>& outputs = flight.call->outputs;
  for (const FetchRoute& route : g.fetches) {
    if (route.partition >= static_cast<int>(response.partitions.size()) ||
        route.retval >= static_cast<int>(response.partitions[route.partition].retvals.size())) {
      return FailStep(self, step_id,
                      errors::Internal("Run: worker ",
                                       self->state.workers[g.worker].worker.address,
                                       " returned too few values for step ", step_id));
    }
    outputs[route.fetch] = std::move(response.partitions[route.partition].retvals[route.retval]);
  }
  // Measured times replace the static estimates for later placements.
  for (const wire::PartitionResult& partition : response.partitions) {
    for (size_t i = 0; i < partition.cost_nodes.size() && i < partition.cost_micros.size(); ++i)
      self->state.cost_model.RecordMeasured(partition.cost_nodes[i], partition.cost_micros[i]);
  }
  if (flight.call->trace) {
    Status traced = MergeTraces(response, &flight.call->step_stats);
    if (!traced.ok()) {
      return FailStep(self, step_id,
                      traced.WithContext("Run: worker " +
                                         self->state.workers[g.worker].worker.address));
    }
  }
  if (--flight.pending > 0) return;
  std::shared_ptr<RunCall> call = std::move(flight.call);
  std::shared_ptr<CachedStep> step = std::move(flight.step);
  self->state.inflight.erase(it);
  if (call->trace) {
    if (step != nullptr) AddOptimizerTrace(step->optimizer_passes, &call->step_stats);
    // Devices in name order, whatever order the workers answered in.
    auto* devices = call->step_stats.mutable_dev_stats();
    std::sort(devices->pointer_begin(), devices->pointer_end(),
              [](const auto* a, const auto* b) { return a->device() < b->device(); });
  }
  call->Finish(Status::OK());
}

// Sends a group's RunGraph as a lane message; false (nothing sent) when
// the worker cannot be reached that way now.
bool SendDirect(MasterPointer self, const WorkerRecord& worker, int64_t step_id, int group,
                const wire::RunGraphRequest& request, InFlightStep* flight) {
  MasterState& st = self->state;
  if (!worker.worker.remote || worker.lane_address.empty()) return false;
  std::string body = wire::EncodeRunGraphRequest(request);
  if (body.size() > net::kMaxLaneBodyBytes) return false;
  const uint64_t correlation = LaneReplies::Global().Register(self->address());
  net::LanePrefix prefix;
  prefix.kind = net::LaneKind::kRunGraph;
  prefix.correlation = correlation;
  prefix.step_id = step_id;
  if (!st.lane->SendMessage(worker.lane_address, prefix, body).ok()) {
    LaneReplies::Global().Forget(correlation);
    return false;
  }
  st.direct_pending[correlation] = DirectRequest{step_id, group};
  flight->correlations.push_back(correlation);
  return true;
}

void Dispatch(MasterPointer self, const std::shared_ptr<CachedStep>& step,
              std::shared_ptr<RunCall> call) {
  MasterState& st = self->state;
  if (Clock::now() >= call->deadline) {
    return call->Finish(errors::DeadlineExceeded("Run: the deadline passed before the step started"));
  }
  for (const auto& group : step->groups) {
    const WorkerRecord& w = st.workers[group.worker];
    if (!w.alive) return call->Finish(errors::Unavailable("Run: ", w.Describe(), " is down: ", w.lost.message()));
  }
  const int64_t step_id = st.next_step_id++;
  call->outputs.resize(call->fetches.size());
  for (size_t i = 0; i < step->fetch_from_feed.size(); ++i) {
    if (step->fetch_from_feed[i] >= 0) call->outputs[i] = call->feeds[step->fetch_from_feed[i]].second;
  }
  if (step->groups.empty()) return call->Finish(Status::OK());

  std::vector<wire::RunGraphRequest> requests(step->groups.size());
  for (size_t g = 0; g < step->groups.size(); ++g) {
    const CachedStep::Group& group = step->groups[g];
    wire::RunGraphRequest& req = requests[g];
    req.session_id = st.session_id;
    req.incarnation = st.workers[group.worker].incarnation;
    req.step_id = step_id;
    req.trace = call->trace;
    req.partitions.resize(group.handles.size());
    for (size_t p = 0; p < group.handles.size(); ++p) {
      req.partitions[p].handle = group.handles[p];
      req.partitions[p].args.resize(group.num_args[p]);
    }
  }
  for (size_t i = 0; i < step->feeds.size(); ++i) {
    const FeedRoute& route = step->feeds[i];
    if (route.group < 0) continue;
    requests[route.group].partitions[route.partition].args[route.arg] = call->feeds[i].second;
  }
  for (size_t g = 0; g < requests.size(); ++g) {
    const WorkerRecord& w = st.workers[step->groups[g].worker];
    if (!w.worker.remote) continue;
    uint64_t bytes = 0, tensors = 0, payload = 0;
    for (const auto& partition : requests[g].partitions) {
      for (const Tensor& t : partition.args) {
        bytes += t.TotalBytes();
        payload += PayloadBytes(t);
      }
      tensors += partition.args.size();
    }
    if (tensors > 0) AddTraffic(&call->traffic, MasterTask(st), w.task, payload, tensors);
    if (bytes >= wire::kMaxMessageBytes) {
      return call->Finish(errors::ResourceExhausted(
          "Run: the feeds for worker ", st.workers[step->groups[g].worker].worker.address,
          " total ", bytes, " bytes, more than one message between processes carries (",
          wire::kMaxMessageBytes, ")"));
    }
  }
  if (++step->dispatched == kMessagePathRuns) MaybePublishLocal(st, *step);
  // After the measured runs, remote workers with a data plane get the
  // RunGraph by the direct step path (actors/worker/direct_steps.h).
  const bool direct = st.lane != nullptr && !st.reply_address.empty() &&
                      step->dispatched > kMessagePathRuns && !call->trace;
  const caf::duration timeout = TimeLeft(*call);
  InFlightStep& flight = st.inflight[step_id];
  flight.call = std::move(call);
  flight.step = step;
  flight.pending = static_cast<int>(step->groups.size());
  for (size_t g = 0; g < step->groups.size(); ++g) {
    const int group = static_cast<int>(g);
    const int worker = step->groups[g].worker;
    if (direct && SendDirect(self, st.workers[worker], step_id, group, requests[g], &flight)) {
      continue;
    }
    self->request(st.workers[worker].worker.handle, timeout, run_graph_atom::value,
                  std::move(requests[g]))
        .then(
            [=](wire::RunGraphResponse& response) {
              OnRunGraphReply(self, step_id, group, response);
            },
            [=](caf::error& err) {
              FailStep(self, step_id,
                       ErrorFromCaf(self, err, self->state.workers[worker],
                                    "Run (step " + std::to_string(step_id) + ")"));
            });
  }
}

}  // namespace

void RunStep(MasterPointer self, std::shared_ptr<RunCall> call) {
  MasterState& st = self->state;
  if (st.closed || !st.ready) {
    return call->Finish(errors::FailedPrecondition("Run: the session is closed"));
  }
  std::string key = CacheKey(*call);
  auto it = st.cache.find(key);
  if (it == st.cache.end()) return BuildAndRegister(self, key, std::move(call));
  const std::shared_ptr<CachedStep>& step = it->second;
  if (!step->ready) {
    step->waiting.push_back(std::move(call));
    return;
  }
  Dispatch(self, step, std::move(call));
}

void FailStep(MasterPointer self, int64_t step_id, const Status& why) {
  auto it = self->state.inflight.find(step_id);
  if (it == self->state.inflight.end()) return;
  std::shared_ptr<RunCall> call = std::move(it->second.call);
  std::shared_ptr<CachedStep> step = std::move(it->second.step);
  for (uint64_t correlation : it->second.correlations) {
    self->state.direct_pending.erase(correlation);
    LaneReplies::Global().Forget(correlation);
  }
  self->state.inflight.erase(it);
  const wire::WireStatus wire_why = wire::ToWire(why);
  for (const auto& group : step->groups) {
    const WorkerRecord& w = self->state.workers[group.worker];
    if (w.alive) self->send(w.worker.handle, abort_step_atom::value, step_id, wire_why);
  }
  if (self->state.health.events) {
    caf::anon_send(self->state.health.events, af::StepAborted{step_id, why});
  }
  call->Finish(why);
}


void OnDirectReply(MasterPointer self, uint64_t correlation, wire::RunGraphResponse& response) {
  MasterState& st = self->state;
  auto pending = st.direct_pending.find(correlation);
  if (pending == st.direct_pending.end()) {
    // Asked by a client thread (actors/remote_step.h), answered through CAF;
    // or for a step that already failed.
    LaneReplies::Global().DeliverToCallback(correlation, response);
    return;
  }
  const DirectRequest request = pending->second;
  st.direct_pending.erase(pending);
  LaneReplies::Global().Forget(correlation);
  if (auto it = st.inflight.find(request.step_id); it != st.inflight.end()) {
    std::erase(it->second.correlations, correlation);
  }
  OnRunGraphReply(self, request.step_id, request.group, response);
}

void FailOverdueSteps(MasterPointer self) {
  const auto now = Clock::now();
  std::vector<int64_t> overdue;
  for (const auto& [step_id, flight] : self->state.inflight) {
    if (!flight.correlations.empty() && now >= flight.call->deadline) overdue.push_back(step_id);
  }
  for (int64_t step_id : overdue) {
    FailStep(self, step_id,
             errors::DeadlineExceeded("Run (step ", step_id,
                                      "): a worker did not answer before the deadline"));
  }
}

}  // namespace af::actors
