// DirectSteps: a worker's side of the direct step path. A master whose
// step was measured and cached sends its RunGraph as a lane message on the
// data plane (core/net/lane_message.h) instead of through CAF; the worker's
// data-plane reader hands it here, and — when nothing about the session
// needs the worker actor — the step's partitions start right on that
// thread, with the executors the device actors registered
// (actors/worker/local_partitions.h) and the step context every path shares
// (actors/worker/step_registry.h). Its tensors to the master's process go
// back as frames on the data plane, and so does the reply. A remote scalar
// step then costs one socket write and one wake-up each way instead of
// CAF's middleman and scheduler hops (docs/decisions.md, "The direct step
// path").
//
// What the worker actor owns stays there: sessions with injected faults, a
// memory budget or a step time limit, and traced steps, are forwarded to it
// (direct_run_atom) and run exactly as a RunGraph through CAF would, the
// reply still going back by the lane. The actor tells this service which
// sessions and partitions exist; the service refuses what the actor would
// refuse, with the same errors.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>

#include "actors/interfaces.h"
#include "actors/worker/local_partitions.h"
#include "actors/worker/step_registry.h"
#include "core/net/lane_message.h"

namespace af::actors {

class DataPlane;

// ABORTED when a request names an earlier run of this task (`expected`, 0:
// any) than the one it reached (`incarnation`): its master has not yet
// noticed the restart, and the request must not touch this run's state.
Status CheckIncarnation(std::string_view task_name, uint64_t incarnation, uint64_t expected,
                        std::string_view what);

class DirectSteps : public std::enable_shared_from_this<DirectSteps> {
 public:
  DirectSteps(std::string task_name, uint64_t incarnation, std::shared_ptr<StepRegistry> registry,
              std::shared_ptr<LocalPartitionTable> partitions, caf::actor_addr worker)
      : task_name_(std::move(task_name)),
        incarnation_(incarnation),
        registry_(std::move(registry)),
        partitions_(std::move(partitions)),
        worker_(std::move(worker)) {}

  // Where replies and tensors leave (set before any session opens).
  void set_data_plane(std::shared_ptr<DataPlane> plane) { data_plane_ = std::move(plane); }

  // The worker actor's view, kept current by it. `reply_address`: the data
  // plane of the master's process (empty: replies go through CAF);
  // `in_worker`: its steps must run in the worker actor.
  void OpenSession(int64_t session_id, caf::actor master,
                   std::shared_ptr<const RemoteSender> router, std::string reply_address,
                   bool in_worker);
  void CloseSession(int64_t session_id);
  void AddPartition(int64_t session_id, int64_t handle, int32_t num_args, int32_t num_retvals);

  // A RunGraph from the lane (a data-plane reader thread).
  void HandleRunGraph(const net::LanePrefix& prefix, std::string_view body);
  // An abort from the lane: a client thread running a step itself gave up
  // on it (actors/remote_step.h).
  void HandleAbort(const net::LanePrefix& prefix, std::string_view body);
  // Where the session's Sends to other processes go (null: not open here).
  std::shared_ptr<const RemoteSender> Router(int64_t session_id);
  // Answers the lane request `correlation` of `session_id`: by the lane, or
  // through CAF when the reply is too large for it or the lane fails.
  void Reply(int64_t session_id, uint64_t correlation, int64_t step_id,
             const wire::RunGraphResponse& response);

 private:
  struct Session {
    caf::actor master;
    std::shared_ptr<const RemoteSender> router;
    std::string reply_address;
    bool in_worker = false;
    struct Partition {
      int32_t num_args = 0;
      int32_t num_retvals = 0;
    };
    std::unordered_map<int64_t, Partition> partitions;  // by handle
  };
  // Under mu_: the session's entry, copied on write (steps read it without
  // the lock).
  std::shared_ptr<const Session> FindSession(int64_t session_id, bool* closed) const;
  // Runs the request's partitions on this thread; an error before they
  // start is the reply.
  void RunInline(wire::RunGraphRequest& req, const std::shared_ptr<const Session>& session,
                 uint64_t correlation);
  void SendReply(const std::string& address, const caf::actor& master, uint64_t correlation,
                 int64_t step_id, const wire::RunGraphResponse& response);

  const std::string task_name_;
  const uint64_t incarnation_;
  const std::shared_ptr<StepRegistry> registry_;
  const std::shared_ptr<LocalPartitionTable> partitions_;
  const caf::actor_addr worker_;  // weak: the worker owns this
  std::shared_ptr<DataPlane> data_plane_;
  std::mutex mu_;  // guards sessions_ and closed_
  std::unordered_map<int64_t, std::shared_ptr<const Session>> sessions_;
  // Sessions closed lately, so that a request for one is answered with
  // FAILED_PRECONDITION rather than left unanswered (bounded).
  std::unordered_map<int64_t, std::shared_ptr<const Session>> closed_;
  std::deque<int64_t> closed_order_;
};

}  // namespace af::actors
