// PeerRouter: where a session's Sends to other processes go (device ->
// worker), and how: to a peer with a data plane, tensors of fixed-size
// dtypes as frames (up to 64 KiB written at once by the sending thread,
// larger ones by the plane's sender threads); otherwise, and for strings,
// dead tensors and a peer not yet connected, small tensors as push
// messages through CAF (gathered in the peer's outbox) and large ones in
// chunks. With fault
// injection (actors/worker/fault_hooks.h) every tensor leaving here may be
// delayed, dropped or duplicated on its way out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/actor_addr.hpp>

#include "actors/interfaces.h"
#include "actors/worker/fault_hooks.h"
#include "actors/worker/push_outbox.h"
#include "actors/worker/step_context.h"

namespace af::actors {

class DataPlane;

class PeerRouter final : public RemoteSender, public std::enable_shared_from_this<PeerRouter> {
 public:
  // `sender`: the worker, named as the sender of every push, because a
  // worker with a cluster secret refuses anonymous messages.
  explicit PeerRouter(caf::actor_addr sender) : sender_(std::move(sender)) {}
  // `outbox` gathers the small tensors bound for `worker` (shared by its
  // devices); `data_address`: its data plane (empty: large tensors go in
  // chunks through CAF).
  void Add(std::string device, worker_actor worker, std::shared_ptr<PushOutbox> outbox,
           std::string data_address = "") {
    routes_.push_back(Route{std::move(device), std::move(worker), std::move(outbox),
                            std::move(data_address)});
  }
  // This worker's data plane, which sends large tensors to peers that
  // have one (null: chunks through CAF).
  void set_data_plane(std::shared_ptr<DataPlane> plane) { data_plane_ = std::move(plane); }
  // The task's injected faults (null: none).
  void set_faults(std::shared_ptr<const FaultHooks> faults) { faults_ = std::move(faults); }
  // A dropped tensor is OK here, as a message lost on the network is to
  // its sender: the step fails at its Recv's deadline (the Run's).
  Status Send(int64_t step_id, const std::string& key, std::string_view dst_device,
              const Tensor& value, bool is_dead) const override;

 private:
  struct Route {
    std::string device;
    worker_actor worker;
    std::shared_ptr<PushOutbox> outbox;
    std::string data_address;
  };
  // Puts the tensor on its way to `route`'s worker.
  void Transmit(const Route& route, int64_t step_id, const std::string& key, const Tensor& value,
                bool is_dead, bool chunked) const;
  // Send with the task's faults applied.
  void SendWithFaults(const Route& route, int64_t step_id, const std::string& key,
                      const Tensor& value, bool is_dead, bool chunked) const;

  caf::actor_addr sender_;  // weak: the worker's state owns the router
  std::shared_ptr<DataPlane> data_plane_;
  std::shared_ptr<const FaultHooks> faults_;
  std::vector<Route> routes_;
};

}  // namespace af::actors
