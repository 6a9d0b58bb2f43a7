#include "actors/worker/worker_handlers.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/system_messages.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/any_thread_send.h"
#include "actors/transport/incoming_tensors.h"
#include "actors/health/stall_reporting.h"
#include "actors/worker/data_plane.h"
#include "actors/worker/delay_line.h"
#include "actors/worker/fault_hooks.h"
#include "actors/device/device_actor.h"
#include "actors/worker/push_outbox.h"
#include "core/logging.h"
#include "core/server_limits.h"

namespace af::actors {
namespace {

// Steps announced by pushes or aborts whose RunGraph never came are
// dropped after this long.
constexpr auto kOrphanStepLifetime = std::chrono::minutes(5);
// Building a partition's executor (import, kernel construction) is local
// work; this only bounds a device actor that stopped answering.
constexpr auto kRegisterTimeout = std::chrono::minutes(10);

void FinishStep(WorkerPointer self, int64_t step_id) {
  self->state.steps.erase(step_id);
  self->state.registry->Finish(step_id);
  IncomingTensors::Global().ReleaseStep(step_id);
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

}  // namespace

WorkerStep* GetOrCreateStep(WorkerPointer self, int64_t step_id) {
  auto it = self->state.steps.find(step_id);
  if (it != self->state.steps.end()) return &it->second;
  std::shared_ptr<StepContext> context = self->state.registry->GetOrCreate(step_id);
  if (context == nullptr) return nullptr;  // finished here lately
  WorkerStep& step = self->state.steps[step_id];
  step.context = std::move(context);
  return &step;
}

// Copies a chunk into its tensor's destination (allocated by the first chunk
// to arrive, here, after the sender was admitted) and hands the tensor to the
// step's rendezvous once complete. False: stop sending.
bool ReceiveChunk(WorkerPointer self, wire::TensorChunk& chunk) {
  WorkerStep* found = GetOrCreateStep(self, chunk.step_id);
  if (found == nullptr || found->context->aborted()) {
    IncomingTensors::Global().Release(chunk.step_id, chunk.key);
    return false;
  }
  WorkerStep& step = *found;
  Tensor whole = chunk.tensor;  // in one process: the source itself
  if (chunk.from_wire) {
    Status s = IncomingTensors::Global().Acquire(chunk.step_id, chunk.key, chunk.dtype,
                                                 chunk.shape, &whole);
    if (s.ok() && (chunk.offset > whole.TotalBytes() ||
                   chunk.length > whole.TotalBytes() - chunk.offset ||
                   chunk.length != chunk.tensor.TotalBytes())) {
      s = errors::DataLoss("chunk [", chunk.offset, ", +", chunk.length, ") of '", chunk.key,
                           "' does not fit its tensor of ", whole.TotalBytes(), " bytes");
    }
    if (!s.ok()) {
      IncomingTensors::Global().Release(chunk.step_id, chunk.key);
      HandlerScope scope(self);
      self->state.registry->Abort(chunk.step_id, s);
      return false;
    }
    if (chunk.length > 0) {
      std::memcpy(static_cast<char*>(whole.raw_data()) + chunk.offset, chunk.tensor.raw_data(),
                  chunk.length);
    }
  }
  uint64_t& received = step.chunk_bytes[chunk.key];
  received += chunk.length;
  if (received < whole.TotalBytes()) return true;
  step.chunk_bytes.erase(chunk.key);
  IncomingTensors::Global().Release(chunk.step_id, chunk.key);
  HandlerScope scope(self);
  self->state.registry->NoteDelivery(
      step.context->rendezvous()->DeliverFromPeer(chunk.key, whole, false));
  return true;
}

wire::RunGraphResponse ErrorResponse(const Status& s) {
  wire::RunGraphResponse response;
  response.status = wire::ToWire(s);
  return response;
}

namespace {

// Starts a RunGraph's partitions; the answer when it ends at once (an
// error, or no partitions), else null and the step (in `*started`) answers
// when its partitions are done (StepDone).
std::optional<wire::RunGraphResponse> StartRunGraph(WorkerPointer self,
                                                    wire::RunGraphRequest& req,
                                                    WorkerStep** started) {
  WorkerState& st = self->state;
  const int64_t step_id = req.step_id;
  if (Status s = CheckIncarnation(st, req.incarnation, "RunGraph"); !s.ok()) {
    return ErrorResponse(s);
  }
  auto session = st.sessions.find(req.session_id);
  if (session == st.sessions.end()) {
    return ErrorResponse(errors::FailedPrecondition(
        "RunGraph: session ", req.session_id, " is not open on ", st.task_name));
  }
  Status refused;
  std::shared_ptr<StepContext> context =
      st.registry->Claim(step_id, req.session_id, st.task_name, &refused);
  // Leave a running step alone; this request is the mistake.
  if (context == nullptr) return ErrorResponse(refused);
  WorkerStep& step = st.steps[step_id];
  step.context = std::move(context);
  auto fail = [&](const Status& s) {
    HandlerScope scope(self);
    step.context->Abort(s);
    FinishStep(self, step_id);
    return ErrorResponse(s);
  };
  step.has_run = true;
  step.session_id = req.session_id;
  step.context->set_memory_budget(session->second.memory_budget);
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
  *started = &step;
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
  if (st.max_step.count() > 0) {
    const double secs = std::chrono::duration<double>(st.max_step).count();
    self->delayed_send(self, st.max_step, abort_step_atom::value, step_id,
                       wire::ToWire(errors::DeadlineExceeded(
                           "step ", step_id, " of session ", req.session_id, " on ",
                           st.task_name, " ran past this server's limit of ", secs,
                           " s per step (--max_step_secs)")));
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (late_start) {
      self->delayed_send(st.device_actors[devices[i]], late.delay, run_part_atom::value,
                         step.context, static_cast<int32_t>(i), req.partitions[i].handle);
    } else {
      self->send(st.device_actors[devices[i]], run_part_atom::value, step.context,
                 static_cast<int32_t>(i), req.partitions[i].handle);
    }
  }
  return std::nullopt;
}

}  // namespace

caf::result<wire::RunGraphResponse> RunGraph(WorkerPointer self, wire::RunGraphRequest& req) {
  WorkerStep* step = nullptr;
  std::optional<wire::RunGraphResponse> now = StartRunGraph(self, req, &step);
  if (now) return std::move(*now);
  step->promise = self->make_response_promise<wire::RunGraphResponse>();
  return step->promise;
}

void RunDirectGraph(WorkerPointer self, uint64_t correlation, wire::RunGraphRequest& req) {
  WorkerStep* step = nullptr;
  const int64_t session_id = req.session_id;
  const int64_t step_id = req.step_id;
  std::optional<wire::RunGraphResponse> now = StartRunGraph(self, req, &step);
  if (now) return self->state.direct->Reply(session_id, correlation, step_id, *now);
  step->direct = true;
  step->correlation = correlation;
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
  response.sent = step.context->TakeTraffic();
  for (TaskTraffic& entry : response.sent) entry.src = self->state.task_name;
  if (step.direct) {
    self->state.direct->Reply(step.session_id, step.correlation, step_id, response);
  } else {
    step.promise.deliver(std::move(response));
  }
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
  if (Status s = CheckGraphLimits("RegisterGraph of session " + std::to_string(req.session_id),
                                  static_cast<int64_t>(req.graph_def.size()), -1);
      !s.ok()) {
    failure.status = wire::ToWire(s);
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
                self->state.direct->AddPartition(session_id, handle, response.num_args,
                                                 response.num_retvals);
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

// The stall inspector (as Horovod's): a hang is never silent. A step's
// Recv that has waited too long is reported once with the tensor and the
// device it waits for, which names the task to look at.
void InspectStalls(WorkerPointer self) {
  WorkerState& st = self->state;
  for (const StepRegistry::Stall& stalled : st.registry->NewStalls(st.stall_warning_after)) {
    // key: src_device;src_incarnation;dst_device;tensor_name;frame:iteration
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
      const size_t end = stalled.key.find(';', start);
      parts.push_back(stalled.key.substr(start, end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    std::string line = "step " + std::to_string(stalled.step_id) + " on " + st.task_name + ": ";
    if (parts.size() >= 4) {
      line += "the Recv of '" + parts[3] + "' on " + parts[2] + " has waited " +
              std::to_string(static_cast<int>(stalled.seconds)) + " s for " + parts[0];
    } else {
      line += "a Recv of '" + stalled.key + "' has waited " +
              std::to_string(static_cast<int>(stalled.seconds)) + " s";
    }
    ReportStall(StallReporting{st.stall_warning_after, st.stall_log}, line);
  }
  self->delayed_send(self, std::max<std::chrono::milliseconds>(st.stall_warning_after / 4,
                                                               std::chrono::milliseconds(50)),
                     inspect_atom::value);
}

// A tensor from a Send in another process, for a Recv of a step here.
void DeliverPush(WorkerPointer self, const wire::TensorPush& push) {
  HandlerScope scope(self);
  (void)self->state.registry->Deliver(push.step_id, push.key, push.value, push.is_dead);
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

void Sweep(WorkerPointer self) {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = self->state.steps.begin(); it != self->state.steps.end();) {
    const bool orphan = !it->second.has_run &&
                        now - it->second.context->created() > kOrphanStepLifetime;
    it = orphan ? self->state.steps.erase(it) : std::next(it);
  }
  for (int64_t orphan : self->state.registry->SweepOrphans(kOrphanStepLifetime)) {
    IncomingTensors::Global().ReleaseStep(orphan);
  }
  // Chunks of steps the registry never saw (no RunGraph, no push) are
  // found by age alone.
  IncomingTensors::Global().ReleaseOlderThan(kOrphanStepLifetime);
  // Outboxes of routers that were replaced or closed with their session.
  std::erase_if(self->state.outboxes, [](const auto& entry) { return entry.second.expired(); });
  self->delayed_send(self, kSweepPeriod, sweep_atom::value);
}

}  // namespace af::actors
