#include "actors/master/cluster_membership.h"

#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/cluster_connect.h"
#include "actors/interfaces.h"
#include "actors/transport/caf_status.h"
#include "core/cluster_spec.h"
#include "core/device_name.h"
#include "core/logging.h"

namespace af::actors {
namespace {

constexpr auto kPeerTimeout = std::chrono::seconds(10);

// The job and index of a task name ("/job:worker/replica:0/task:3").
bool JobAndIndex(const std::string& task, std::string* job, int* index) {
  DeviceName name;
  if (!ParseDeviceName(task, &name).ok() || !name.has_job || !name.has_task) return false;
  *job = name.job;
  *index = name.task;
  return true;
}

}  // namespace

Status AddJoiningTask(const std::string& self_task, const std::string& self_address,
                      const std::string& job, const std::string& address,
                      std::vector<RemoteTask>* others, int* index) {
  if (!IsValidJobName(job)) {
    return errors::InvalidArgument("JoinCluster: '", job, "' is not a job name");
  }
  std::string host;
  uint16_t port = 0;
  AF_RETURN_IF_ERROR(ParseHostPort(address, &host, &port).WithContext("JoinCluster"));
  if (address == self_address) {
    return errors::InvalidArgument("JoinCluster: ", address, " is this server (", self_task, ")");
  }
  int next = 0;
  std::string task_job;
  int task_index = 0;
  if (JobAndIndex(self_task, &task_job, &task_index) && task_job == job) {
    next = std::max(next, task_index + 1);
  }
  for (const RemoteTask& task : *others) {
    const bool parsed = JobAndIndex(task.task, &task_job, &task_index);
    if (task.address == address) {
      if (!parsed || task_job != job) {
        return errors::InvalidArgument("JoinCluster: ", address, " is already ",
                                       task.task.empty() ? "a task" : task.task,
                                       ", not a task of job ", job);
      }
      *index = task_index;  // a retry of the same join
      return Status::OK();
    }
    if (parsed && task_job == job) next = std::max(next, task_index + 1);
  }
  if (others->size() + 1 >= kMaxClusterTasks) {
    return errors::ResourceExhausted("JoinCluster: the cluster already has ", others->size() + 1,
                                     " tasks, its limit");
  }
  *index = next;
  others->push_back(RemoteTask{address, ClusterSpec::TaskName(job, next)});
  return Status::OK();
}

void EveryTask(const std::string& self_task, const std::string& self_address,
               const std::vector<RemoteTask>& others, std::vector<std::string>* names,
               std::vector<std::string>* addresses) {
  names->assign(1, self_task);
  addresses->assign(1, self_address);
  for (const RemoteTask& task : others) {
    names->push_back(task.task);
    addresses->push_back(task.address);
  }
}

Status OtherTasks(const std::vector<std::string>& names,
                  const std::vector<std::string>& addresses, const std::string& self_task,
                  std::vector<RemoteTask>* others) {
  if (names.size() != addresses.size() || names.size() > kMaxClusterTasks) {
    return errors::InvalidArgument("a cluster member list of ", names.size(), " names and ",
                                   addresses.size(), " addresses");
  }
  others->clear();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != self_task) others->push_back(RemoteTask{addresses[i], names[i]});
  }
  return Status::OK();
}

void DistributeMembers(caf::actor_system& system, std::vector<std::string> names,
                       std::vector<std::string> addresses, std::vector<RemoteTask> peers,
                       std::string cluster_secret) {
  if (peers.empty()) return;
  // A detached actor, as a session's setup: connecting blocks, and the
  // actor system waits for it when it stops.
  system.spawn<caf::detached>([names = std::move(names), addresses = std::move(addresses),
                               peers = std::move(peers),
                               secret = std::move(cluster_secret)](caf::blocking_actor* self) {
    for (const RemoteTask& peer : peers) {
      std::vector<worker_actor> reached;
      Status s = ConnectToTasks(self->system(), {peer},
                                std::chrono::steady_clock::now() + kPeerTimeout, &reached, secret);
      if (!s.ok()) {
        AF_LOG(WARNING) << "the cluster grew, but " << peer.task << " at " << peer.address
                        << " could not be told: " << s;
        continue;
      }
      self->send(reached[0], cluster_atom::value, names, addresses);
    }
  });
}

Status RequestToJoin(caf::actor_system& system, const std::string& target, const std::string& job,
                     const std::string& address, const std::string& cluster_secret,
                     std::chrono::milliseconds timeout, std::vector<RemoteTask>* others,
                     int* index) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<worker_actor> reached;
  AF_RETURN_IF_ERROR(ConnectToTasks(system, {RemoteTask{target, ""}}, deadline, &reached,
                                    cluster_secret)
                         .WithContext("joining the cluster of " + target));
  Status result = errors::DeadlineExceeded("joining the cluster of ", target, ": no answer");
  std::vector<std::string> names, addresses;
  caf::scoped_actor self{system};
  self->request(reached[0], caf::duration(timeout), join_atom::value, job, address)
      .receive(
          [&](wire::WireStatus& status, std::vector<std::string>& n, std::vector<std::string>& a,
              int32_t i) {
            result = wire::FromWire(status);
            names = std::move(n);
            addresses = std::move(a);
            *index = i;
          },
          [&](caf::error& err) {
            result = FromCafError(system, err, "joining the cluster of " + target);
          });
  AF_RETURN_IF_ERROR(result);
  return OtherTasks(names, addresses, ClusterSpec::TaskName(job, *index), others);
}

}  // namespace af::actors
