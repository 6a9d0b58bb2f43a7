#include "actors/worker/data_plane.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <caf/actor_cast.hpp>

#include "actors/any_thread_send.h"
#include "actors/worker/chunk_sender.h"
#include "core/logging.h"
#include "core/net/tcp_socket.h"
#include "core/net/tensor_frame.h"

namespace af::actors {
namespace {

bool DataPlaneEnabled() {
  const char* value = std::getenv("ACTORFLOW_DATA_PLANE");
  return value == nullptr || std::string_view(value) != "off";
}

}  // namespace

std::shared_ptr<DataPlane> DataPlane::Start(const std::string& host, const std::string& secret) {
  if (!DataPlaneEnabled()) return nullptr;
  std::shared_ptr<DataPlane> plane(new DataPlane(std::make_unique<net::TensorSender>(secret)));
  DataPlane* raw = plane.get();
  net::TensorReceiver::Handlers handlers;
  // Both run on a reader thread of the receiver, which Stop joins before
  // the plane goes: `raw` outlives them.
  handlers.deliver = [raw](int64_t step_id, std::string key, Tensor value) {
    caf::strong_actor_ptr worker;
    {
      std::lock_guard<std::mutex> lock(raw->mu_);
      worker = caf::actor_cast<caf::strong_actor_ptr>(raw->worker_);
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
  Status s = net::TensorReceiver::Start(host, secret, std::move(handlers), &plane->receiver_);
  if (!s.ok()) {
    AF_LOG(WARNING) << "data plane: cannot listen on " << host << " (" << s.ToString()
                    << "); large tensors of this worker cross through CAF";
    return nullptr;
  }
  return plane;
}

DataPlane::~DataPlane() { Stop(); }

void DataPlane::Attach(const caf::actor_addr& worker) {
  std::lock_guard<std::mutex> lock(mu_);
  worker_ = worker;
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
