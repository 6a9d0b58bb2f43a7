// Reaching the other tasks of a cluster: the startup rendezvous (tasks
// start in any order, so connections are retried until a deadline) and the
// check that each address serves the task the cluster spec names.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "actors/interfaces.h"
#include "actors/runtime_handle.h"
#include "core/status.h"

namespace af::actors {

// Connects to every task, retrying with backoff until `deadline`; a failure
// names each task still missing, its address and the last error. Each
// connection runs the cluster-secret handshake with `cluster_secret`
// (empty: this process has none; actors/transport/peer_auth.h); a refusal there is
// final (UNAUTHENTICATED), not retried.
Status ConnectToTasks(caf::actor_system& system, const std::vector<RemoteTask>& tasks,
                      std::chrono::steady_clock::time_point deadline,
                      std::vector<worker_actor>* out, const std::string& cluster_secret = "");

// A server started with another job or task at an address the spec names
// is a misconfiguration, not a device to use.
Status CheckTasks(const std::vector<RemoteTask>& tasks, const std::vector<DeviceAttributes>& devices);

}  // namespace af::actors
