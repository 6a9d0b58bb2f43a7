// A cluster that grows past its spec (issue 28): `actorflow server --join
// af://host:port --job worker --port P` asks a running server for a place.
// That server gives the newcomer the next free index of its job, adds it to
// the tasks its master service uses for af:// sessions that name none,
// hands it the whole cluster, and tells every other task of the cluster the
// new member list, so that sessions opened after the join, on any of them,
// see the new task's devices. Sessions already open keep the cluster they
// started with, as a TensorFlow session keeps its ClusterSpec.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/runtime_handle.h"
#include "core/status.h"

namespace af::actors {

// The most tasks a cluster may grow to by joins.
inline constexpr size_t kMaxClusterTasks = 4096;

// Adds a task of `job` at `address` to `others` (the server's other tasks;
// the server itself is `self_task` at `self_address`) and sets `*index`. A
// task already at that address keeps its place (a joiner that retries).
// INVALID_ARGUMENT for a malformed job or address, or an address the server
// itself or a task of another job holds.
Status AddJoiningTask(const std::string& self_task, const std::string& self_address,
                      const std::string& job, const std::string& address,
                      std::vector<RemoteTask>* others, int* index);

// Every task, the server itself first: task names and addresses.
void EveryTask(const std::string& self_task, const std::string& self_address,
               const std::vector<RemoteTask>& others, std::vector<std::string>* names,
               std::vector<std::string>* addresses);

// The tasks of a member list other than `self_task`; INVALID_ARGUMENT when
// the lists differ in length or are longer than kMaxClusterTasks.
Status OtherTasks(const std::vector<std::string>& names,
                  const std::vector<std::string>& addresses, const std::string& self_task,
                  std::vector<RemoteTask>* others);

// Tells each of `peers` the member list, from a detached actor (peers are
// reached as at startup, with the cluster secret); a peer that cannot be
// reached within 10 s is logged and skipped: it learns the list at the next
// join, and its own sessions keep working with what it knew.
void DistributeMembers(caf::actor_system& system, std::vector<std::string> names,
                       std::vector<std::string> addresses, std::vector<RemoteTask> peers,
                       std::string cluster_secret);

// The joiner's side: asks the server at `target` ("host:port") for a place
// in its cluster for a task of `job` listening at `address`; on success the
// other tasks of the cluster and this task's index.
Status RequestToJoin(caf::actor_system& system, const std::string& target, const std::string& job,
                     const std::string& address, const std::string& cluster_secret,
                     std::chrono::milliseconds timeout, std::vector<RemoteTask>* others,
                     int* index);

}  // namespace af::actors
