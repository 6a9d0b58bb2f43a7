#include "actors/worker/data_plane.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <caf/actor_cast.hpp>

#include "actors/any_thread_send.h"
#include "actors/transport/lane_replies.h"
#include "actors/worker/chunk_sender.h"
#include "actors/worker/direct_steps.h"
#include "core/hop_trace.h"
#include "core/logging.h"
#include "core/net/tcp_socket.h"
#include "core/net/tensor_frame.h"

namespace af::actors {
namespace {

bool DirectPathEnabled() {
  const char* value = std::getenv("ACTORFLOW_DIRECT_PATH");
  return value == nullptr || std::string_view(value) != "off";
}

bool DataPlaneEnabled() {
  const char* value = std::getenv("ACTORFLOW_DATA_PLANE");
  return value == nullptr || std::string_view(value) != "off";
}

}  // namespace

std::shared_ptr<DataPlane> DataPlane::Start(const std::string& host, const std::string& secret) {
  if (!DataPlaneEnabled()) return nullptr;
  std::shared_ptr<DataPlane> plane(new DataPlane(std::make_unique<net::TensorSender>(secret),
                                                 std::make_unique<net::LaneWriter>(secret),
                                                 DirectPathEnabled()));
  DataPlane* raw = plane.get();
  net::TensorReceiver::Handlers handlers;
  // All run on a reader thread of the receiver, which Stop joins before
  // the plane goes: `raw` outlives them.
  // What a step does on a reader thread (a tensor that completes a Recv,
  // a RunGraph run here) and writes to one peer leaves as one write.
  handlers.deliver = [raw](int64_t step_id, std::string key, Tensor value) {
    HopTrace::Mark(step_id, Hop::kTensorRead);
    net::LaneWriter::Batch batch(raw->lane_.get());
    caf::strong_actor_ptr worker;
    std::shared_ptr<StepRegistry> registry;
    {
      std::lock_guard<std::mutex> lock(raw->mu_);
      worker = caf::actor_cast<caf::strong_actor_ptr>(raw->worker_);
      registry = raw->registry_;
    }
    if (registry) {
      (void)registry->Deliver(step_id, key, value, false);  // duplicates noted there
      return;
    }
    if (!worker) return;
    SendFromAnyThreadAs(worker, worker, push_atom::value,
                        wire::TensorPush{step_id, std::move(key), std::move(value), false});
  };
  handlers.failed = [raw](int64_t step_id, const std::string& key, const Status& why) {
    caf::strong_actor_ptr worker;
    {
      std::lock_guard<std::mutex> lock(raw->mu_);
      worker = caf::actor_cast<caf::strong_actor_ptr>(raw->worker_);
    }
    if (!worker) return;
    SendFromAnyThreadAs(worker, worker, abort_step_atom::value, step_id, wire::ToWire(why));
  };
  handlers.message = [raw](const net::LanePrefix& prefix, std::string body) {
    net::LaneWriter::Batch batch(raw->lane_.get());
    if (prefix.kind == net::LaneKind::kRunGraph) HopTrace::Mark(prefix.step_id, Hop::kRequestRead);
    if (prefix.kind == net::LaneKind::kRunGraphReply) {
      HopTrace::Mark(prefix.step_id, Hop::kReplyRead);
      LaneReplies::Global().Deliver(prefix.correlation, body);
      return;
    }
    std::shared_ptr<DirectSteps> direct;
    {
      std::lock_guard<std::mutex> lock(raw->mu_);
      direct = raw->direct_steps_;
    }
    if (!direct) return;
    if (prefix.kind == net::LaneKind::kAbortStep) {
      direct->HandleAbort(prefix, body);
    } else {
      direct->HandleRunGraph(prefix, body);
    }
  };
  Status s = net::TensorReceiver::Start(host, secret, std::move(handlers), &plane->receiver_);
  if (!s.ok()) {
    AF_LOG(WARNING) << "data plane: cannot listen on " << host << " (" << s.ToString()
                    << "); large tensors of this worker cross through CAF";
    return nullptr;
  }
  return plane;
}

DataPlane::~DataPlane() { Stop(); }

void DataPlane::Attach(const caf::actor_addr& worker, std::shared_ptr<StepRegistry> registry,
                       std::shared_ptr<DirectSteps> direct) {
  std::lock_guard<std::mutex> lock(mu_);
  worker_ = worker;
  registry_ = std::move(registry);
  direct_steps_ = std::move(direct);
}

bool DataPlane::SendNow(const std::string& address, int64_t step_id, const std::string& key,
                        const Tensor& value) {
  return direct_ && lane_->SendTensor(address, step_id, key, value).ok();
}

Status DataPlane::SendMessage(const std::string& address, const net::LanePrefix& prefix,
                              std::string_view body) {
  if (!direct_) return errors::Unavailable("data plane: the direct path is off");
  return lane_->SendMessage(address, prefix, body);
}

void DataPlane::Prepare(const std::string& address) {
  if (direct_) lane_->Prepare(address);
}

void DataPlane::Send(const std::string& address, const worker_actor& dest, int64_t step_id,
                     const std::string& key, const Tensor& value) {
  if (!net::CanFrame(value)) return SendInChunks(dest, step_id, key, value);
  net::TensorSender::Job job;
  job.step_id = step_id;
  job.key = key;
  job.value = value;
  job.fallback = [dest, step_id, key, value] { SendInChunks(dest, step_id, key, value); };
  sender_->Send(address, std::move(job));
}

void DataPlane::Stop() {
  // The receiver first: no delivery may start once the worker is gone.
  if (receiver_) receiver_->Stop();
  if (sender_) sender_->Stop();
  if (lane_) lane_->Stop();
  // Steps still running hold the service through their replies; the
  // service holds this plane: break the cycle.
  std::lock_guard<std::mutex> lock(mu_);
  direct_steps_ = nullptr;
  registry_ = nullptr;
}

std::string PeerDataAddress(const std::string& advertised, const std::string& worker_address,
                            const std::string& first_remote) {
  std::string host;
  uint16_t port = 0;
  if (!net::SplitHostPort(advertised, &host, &port)) return "";
  if (!net::IsWildcardHost(host)) return advertised;
  std::string reached;
  uint16_t ignored = 0;
  if (!worker_address.empty() && net::SplitHostPort(worker_address, &reached, &ignored)) {
    return net::JoinHostPort(reached, port);
  }
  std::string remote_host;
  if (!first_remote.empty() && net::SplitHostPort(first_remote, &remote_host, &ignored)) {
    return net::JoinHostPort(net::LocalAddressToward(remote_host), port);
  }
  return net::JoinHostPort("127.0.0.1", port);
}

std::string ClientDataPlaneHost(const std::string& first_task_address, bool has_secret) {
  if (!has_secret) return "127.0.0.1";
  std::string host;
  uint16_t port = 0;
  if (!net::SplitHostPort(first_task_address, &host, &port)) return "127.0.0.1";
  return net::LocalAddressToward(host);
}

}  // namespace af::actors
