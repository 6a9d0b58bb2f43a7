#include "actors/cluster_connect.h"

#include <algorithm>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>

#include "actors/transport/peer_auth.h"
#include "actors/virtual_transport.h"
#include "actors/transport/wire_handshake.h"
#include "core/cluster_spec.h"

namespace af::actors {
namespace {

std::string TaskLabel(const RemoteTask& task) {
  return task.task.empty() ? "the server" : task.task;
}

}  // namespace

// The startup rendezvous: tasks of a cluster start in any order, so each
// connection is retried with backoff until the deadline; a failure names
// every task still missing, its address and the last error.
Status ConnectToTasks(caf::actor_system& system, const std::vector<RemoteTask>& tasks,
                      std::chrono::steady_clock::time_point deadline,
                      std::vector<worker_actor>* out, const std::string& cluster_secret) {
  using Clock = std::chrono::steady_clock;
  struct Pending {
    std::string host;
    uint16_t port = 0;
    std::string last_error;
  };
  std::vector<Pending> pending(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (IsVirtualAddress(tasks[i].address)) continue;  // a task of this process
    AF_RETURN_IF_ERROR(ParseHostPort(tasks[i].address, &pending[i].host, &pending[i].port));
  }
  out->assign(tasks.size(), worker_actor{});
  const auto start = Clock::now();
  auto backoff = std::chrono::milliseconds(20);
  while (true) {
    size_t missing = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if ((*out)[i]) continue;
      if (IsVirtualAddress(tasks[i].address)) {
        Status found = ResolveVirtualTask(system, tasks[i].address, &(*out)[i]);
        if (!found.ok()) {
          pending[i].last_error = found.message();
          ++missing;
        }
        continue;
      }
      const std::string who = TaskLabel(tasks[i]) + " at " + tasks[i].address;
      worker_actor remote;
      Status admitted =
          ConnectToWorker(system, pending[i].host, pending[i].port, deadline, who, &remote,
                          cluster_secret);
      if (admitted.ok()) admitted = Authenticate(system, remote, cluster_secret, deadline, who);
      if (admitted.ok()) {
        (*out)[i] = std::move(remote);
      } else if (errors::IsUnauthenticated(admitted) || errors::IsFailedPrecondition(admitted)) {
        // Another secret or another version: waiting changes neither. (A
        // task restarting on its address can drop a handshake halfway, which
        // reads the same; retrying it was tried and could hang a later
        // connect until the whole deadline, so the caller's recovery, which
        // restarts the process, handles that case.)
        out->clear();
        return admitted;
      } else {
        pending[i].last_error = admitted.message();
        ++missing;
      }
    }
    if (missing == 0) return Status::OK();
    const auto now = Clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  std::string missing;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if ((*out)[i]) continue;
    if (!missing.empty()) missing += "; ";
    missing += "waiting for " + (tasks[i].task.empty() ? "worker" : tasks[i].task) + " at " +
               tasks[i].address + ": " + pending[i].last_error;
  }
  out->clear();
  return errors::Unavailable("Session: the cluster was not ready after ",
                             static_cast<int>(waited * 10) / 10.0, " s: ", missing);
}

// A cluster spec names the task at each address; a server started with
// another job or task there is a misconfiguration, not a device to use.
Status CheckTasks(const std::vector<RemoteTask>& tasks, const std::vector<DeviceAttributes>& devices) {
  for (const RemoteTask& task : tasks) {
    if (task.task.empty()) continue;
    const std::string prefix = task.task + "/device:";
    const bool found = std::any_of(devices.begin(), devices.end(), [&](const DeviceAttributes& d) {
      return d.name.compare(0, prefix.size(), prefix) == 0;
    });
    if (!found) {
      return errors::InvalidArgument("Session: the cluster spec puts ", task.task, " at ",
                                     task.address,
                                     ", but the server there offers other devices (started "
                                     "with another --job or --task?)");
    }
  }
  return Status::OK();
}

}  // namespace af::actors
