#include "actors/worker/peer_router.h"

#include <caf/actor_cast.hpp>

#include "actors/any_thread_send.h"
#include "actors/worker/chunk_sender.h"
#include "actors/worker/data_plane.h"
#include "core/net/tensor_frame.h"

namespace af::actors {
namespace {

// Tensors up to this size are written by the thread that sent them (one
// write, no wake-up); larger ones go to the data plane's sender threads,
// so that a thread that finishes a Send never waits for a slow socket.
constexpr uint64_t kDirectTensorBytes = 64 * 1024;

}  // namespace

Status PeerRouter::Send(int64_t step_id, const std::string& key, std::string_view dst_device,
                        const Tensor& value, bool is_dead) const {
  if (value.TotalBytes() >= wire::kMaxMessageBytes &&
      (value.dtype() == DT_STRING || value.dtype() == DT_RESOURCE)) {
    return errors::ResourceExhausted("step ", step_id, ": tensor '", key, "' of ",
                                     value.TotalBytes(), " bytes is too large for one message to ",
                                     dst_device, " (limit ", wire::kMaxMessageBytes, " bytes)");
  }
  const bool chunked = !is_dead && value.IsInitialized() && value.dtype() != DT_STRING &&
                       value.dtype() != DT_RESOURCE && value.TotalBytes() > wire::kChunkThreshold;
  for (const Route& route : routes_) {
    if (route.device != dst_device) continue;
    if (faults_) {
      SendWithFaults(route, step_id, key, value, is_dead, chunked);
    } else {
      Transmit(route, step_id, key, value, is_dead, chunked);
    }
    return Status::OK();
  }
  return errors::Unavailable("step ", step_id, ": no worker of the session owns device '",
                             dst_device, "' (rendezvous key '", key, "')");
}

void PeerRouter::Transmit(const Route& route, int64_t step_id, const std::string& key,
                          const Tensor& value, bool is_dead, bool chunked) const {
  const worker_actor& worker = route.worker;
  const bool framed = data_plane_ && !route.data_address.empty() && !is_dead &&
                      net::CanFrame(value);
  if (framed && value.TotalBytes() <= kDirectTensorBytes &&
      data_plane_->SendNow(route.data_address, step_id, key, value)) {
    return;  // written on this thread
  }
  if (framed && (chunked || (data_plane_->direct() && value.TotalBytes() > kDirectTensorBytes))) {
    data_plane_->Send(route.data_address, worker, step_id, key, value);
  } else if (chunked) {
    SendInChunks(worker, step_id, key, value);
  } else if (!route.outbox) {
    SendFromAnyThreadAs(caf::actor_cast<caf::strong_actor_ptr>(sender_), worker,
                        push_atom::value, wire::TensorPush{step_id, key, value, is_dead});
  } else if (route.outbox->Add(wire::TensorPush{step_id, key, value, is_dead})) {
    // The worker flushes (the push leaves from its thread, with the rest
    // of the burst); it names itself as the flush's sender.
    auto worker_itself = caf::actor_cast<caf::strong_actor_ptr>(sender_);
    SendFromAnyThreadAs(worker_itself, worker_itself, flush_atom::value, route.outbox->id());
  }
}

void PeerRouter::SendWithFaults(const Route& route, int64_t step_id, const std::string& key,
                                const Tensor& value, bool is_dead, bool chunked) const {
  const faults::TransportFault fault = faults_->injector->NextTransport(/*may_duplicate=*/!chunked);
  if (fault.log_drop) {
    faults_->Log("fault injection on " + faults_->injector->task_name() + ": dropped tensor '" +
                 key + "' of step " + std::to_string(step_id) + " bound for " + route.device +
                 (fault.drop_number == faults::FaultInjector::kDropsLoggedByName
                      ? " (further drops are only counted)"
                      : ""));
  }
  faults_->MaybeReport(fault.report);
  if (fault.drop) return;
  if (fault.delay.count() == 0) {
    Transmit(route, step_id, key, value, is_dead, chunked);
    if (fault.duplicate) Transmit(route, step_id, key, value, is_dead, chunked);
    return;
  }
  // The router stays alive until the late tensor left (its session may
  // close meanwhile; the receiver then ignores the tensor of a gone step).
  faults_->delay_line->After(fault.delay, [self = shared_from_this(), route, step_id, key, value,
                                           is_dead, chunked, dup = fault.duplicate] {
    self->Transmit(route, step_id, key, value, is_dead, chunked);
    if (dup) self->Transmit(route, step_id, key, value, is_dead, chunked);
  });
}

}  // namespace af::actors
