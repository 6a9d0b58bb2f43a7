// DataPlane: a worker's side channel for large tensors. BASP (CAF's
// transport) serializes into a growing buffer, copies again on receive and
// has one I/O thread per process, which held chunked transfers to about 0.4
// of a raw TCP socket (docs/decisions.md); here CAF keeps the control
// (sessions, steps, small tensors) and large tensors of fixed-size dtypes
// cross on plain TCP connections (core/net/): written straight from the
// source tensor, read straight into the destination, then handed to the
// worker actor as a local push. A transfer to a peer without a data plane,
// or one that cannot be reached or refuses the handshake, takes the chunk
// path (actors/worker/chunk_sender.h) instead; one caught in a connection
// that breaks is dropped (the peer is almost surely dead: core/net/
// tensor_sender.h).
//
// One per worker: its listener's address goes out with the worker's
// devices (wire::DeviceInfo::data_address), and masters pass it on to the
// session's other workers (PeerWorker::data_address). The worker stops it
// (joining every thread) when it terminates.
//
// ACTORFLOW_DATA_PLANE=off, read whenever a worker starts, opens no
// listener: that worker's tensors cross in chunks both ways (its peers see
// no address), as before the data plane.
//
// The direct path rides the same connections: small tensors written as
// frames by the thread that produced them (net::LaneWriter) and RunGraph
// requests and replies as lane messages (actors/worker/direct_steps.h).
// Received tensors go straight to their step's rendezvous (StepRegistry),
// not through the worker actor. ACTORFLOW_DIRECT_PATH=off, read when a data
// plane starts, makes this process send neither (it still receives them).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <caf/actor_addr.hpp>

#include "actors/interfaces.h"
#include "actors/worker/step_registry.h"
#include "core/net/lane_writer.h"
#include "core/net/tensor_receiver.h"
#include "core/net/tensor_sender.h"
#include "core/tensor.h"

namespace af::actors {

class DirectSteps;

class DataPlane {
 public:
  // Listens on `host` (ephemeral port). Null, after one line on stderr,
  // when ACTORFLOW_DATA_PLANE=off or the listener cannot start: the
  // worker then works as before, through CAF alone.
  static std::shared_ptr<DataPlane> Start(const std::string& host, const std::string& secret);
  ~DataPlane();  // Stop()
  DataPlane(const DataPlane&) = delete;
  DataPlane& operator=(const DataPlane&) = delete;

  // The numeric "host:port" to advertise (the host may be a wildcard; see
  // PeerDataAddress).
  const std::string& address() const { return receiver_->address(); }
  // Where received tensors go (`registry`, the worker's steps) and lane
  // RunGraph requests (`direct`); without a registry, pushes to `worker`,
  // sent as from the worker itself so that its guard sees a local actor.
  void Attach(const caf::actor_addr& worker, std::shared_ptr<StepRegistry> registry = nullptr,
              std::shared_ptr<DirectSteps> direct = nullptr);
  // Whether this process sends by the direct path.
  bool direct() const { return direct_; }
  // Writes a small tensor's frame to `address` now, on this thread; false
  // (nothing sent) when there is no ready connection to it.
  bool SendNow(const std::string& address, int64_t step_id, const std::string& key,
               const Tensor& value);
  // Writes a lane message now (UNAVAILABLE: no ready connection).
  Status SendMessage(const std::string& address, const net::LanePrefix& prefix,
                     std::string_view body);
  // Starts connecting to `address` for the direct path.
  void Prepare(const std::string& address);
  // The direct path's writer (for batches: net::LaneWriter::Batch).
  net::LaneWriter* lane() { return lane_.get(); }
  // Whether a direct write to `address` would find a connection now.
  bool Ready(const std::string& address) { return direct_ && lane_->Ready(address); }
  // Sends `value` (a fixed-size dtype) for the Recv of `key` in step
  // `step_id` to the worker `dest` whose data plane listens at `address`.
  // Returns at once; falls back to SendInChunks where needed.
  void Send(const std::string& address, const worker_actor& dest, int64_t step_id,
            const std::string& key, const Tensor& value);
  // Closes the listener and every connection and joins their threads.
  void Stop();

 private:
  DataPlane(std::unique_ptr<net::TensorSender> sender, std::unique_ptr<net::LaneWriter> lane,
            bool direct)
      : sender_(std::move(sender)), lane_(std::move(lane)), direct_(direct) {}

  std::unique_ptr<net::TensorSender> sender_;
  std::unique_ptr<net::LaneWriter> lane_;
  const bool direct_;
  std::unique_ptr<net::TensorReceiver> receiver_;
  std::mutex mu_;  // guards worker_, registry_ and direct_steps_
  caf::actor_addr worker_;  // weak: the worker owns this
  std::shared_ptr<StepRegistry> registry_;
  std::shared_ptr<DirectSteps> direct_steps_;
};

// How the other workers of a session reach a worker's data plane, given
// the `advertised` "host:port" (empty: none). A wildcard host (a server
// listening on 0.0.0.0) becomes the host the master reaches the worker at
// (`worker_address`, "host:port"), or, for a worker in the master's own
// process (`worker_address` empty), this host's address toward
// `first_remote` (another task's "host:port"; 127.0.0.1 without one).
std::string PeerDataAddress(const std::string& advertised, const std::string& worker_address,
                            const std::string& first_remote);

// Where a client's in-process worker listens when its session has remote
// tasks: 127.0.0.1 without a cluster secret (as servers without one), else
// the address of this host toward the first task, the interface the
// session's traffic uses (a multi-homed client whose tasks sit on other
// networks is reached there only; the others use the chunk path).
std::string ClientDataPlaneHost(const std::string& first_task_address, bool has_secret);

}  // namespace af::actors
