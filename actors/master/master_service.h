// A server's master service: sessions whose master runs in the server's
// process (a client's SessionOptions::target "af://host:port"). The client
// sends only Extend, Run, Close and container calls; the master here keeps
// the step cache, the heartbeats and the failure policy, exactly as an
// in-process master does (it is the same master actor).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/interfaces.h"
#include "actors/runtime_handle.h"

namespace af::actors {

class DataPlane;

struct MasterServiceOptions {
  // The other tasks of the server's cluster: a session that names none
  // uses these beside the server's own worker.
  std::vector<RemoteTask> cluster_tasks;
  // The server's cluster secret, proven to those tasks (empty: none).
  std::string cluster_secret;
  // The longest deadline a client may ask for a call (0: no limit).
  std::chrono::milliseconds max_call{0};
  // The server's data plane, which the masters use for the direct step
  // path to the other tasks (null: none).
  std::shared_ptr<DataPlane> data_plane;
  // A client that heartbeats its session and then falls silent this long
  // (a stopped or hung process whose connection stays open) has its session
  // closed here (0: never). A client that sends none (an embedding
  // application's own actors) is not timed.
  std::chrono::milliseconds client_timeout{0};
  // This server as a member of its cluster (actors/master/
  // cluster_membership.h): its task name, and its "host:port" once it
  // listens (read when a task joins; empty: joins are refused).
  std::string self_task;
  std::function<std::string()> self_address;
};

// The by-value face of `master` (the protocol of master_session_actor in
// actors/interfaces.h), which a remote client's proxy speaks and an
// embedding application's actors use directly. It closes the session when
// `client` goes down (null: only on a Close request, or when stopped), and
// when a client that heartbeats stops for `client_timeout` (0: never).
master_session_actor SpawnMasterSession(caf::actor_system& system, master_actor master,
                                        caf::actor client,
                                        std::chrono::milliseconds client_timeout = {});

master_service_actor SpawnMasterService(caf::actor_system& system, worker_actor local_worker,
                                        MasterServiceOptions options);

}  // namespace af::actors
