// Cluster specifications as TensorFlow users write them: the jobs of a
// cluster ("ps", "worker", "chief", ...) and the "host:port" of each task,
// read from the actorflow --cluster flag or from TensorFlow's TF_CONFIG.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace af {

struct TaskAddress {
  std::string job;
  int task = 0;
  std::string host;  // without the brackets of an IPv6 literal: "::1"
  uint16_t port = 0;

  // "host:port", with an IPv6 host bracketed again: "[::1]:2222".
  std::string HostPort() const;
};

class ClusterSpec {
 public:
  // "ps=h:p,h:p;worker=h:p,h:p,h:p" (the actorflow --cluster flag). Jobs in
  // any order; a task's index is its position in its job's list. Whitespace
  // around jobs, names and addresses is ignored.
  static Status FromFlag(std::string_view spec, ClusterSpec* out);

  // TensorFlow's TF_CONFIG:
  //   {"cluster": {"ps": ["h:p", ...], "worker": [...], "chief": [...]},
  //    "task": {"type": "worker", "index": 1}}
  // A job may also be an object for sparse task indices, as TensorFlow's
  // ClusterSpec dict form: "worker": {"0": "h:p", "3": "h:p"}.
  // `task_job`/`task_index` (either may be null) get the "task" part: empty
  // and -1 when it is absent; "index" defaults to 0 as in TensorFlow's
  // RunConfig. task.type "evaluator" need not be a job of the cluster,
  // because TensorFlow runs the evaluator outside it. Other top-level keys
  // ("environment", "rpc_layer") are ignored, as TensorFlow does.
  static Status FromTfConfig(std::string_view json, ClusterSpec* out, std::string* task_job,
                             int* task_index);

  const std::vector<std::string>& jobs() const { return jobs_; }  // sorted
  int num_tasks(std::string_view job) const;                      // 0 if the job is absent
  std::vector<int> task_indices(std::string_view job) const;      // ascending
  // "host:port" of the task; NOT_FOUND naming the job or the task otherwise.
  Status Address(std::string_view job, int task, std::string* host_port) const;
  std::vector<TaskAddress> AllTasks() const;  // sorted by job, then task

  // "/job:J/replica:0/task:T", the device-name prefix of that task.
  static std::string TaskName(std::string_view job, int task);

  // The --cluster form, jobs sorted. Round-trips through FromFlag when every
  // job's task indices are 0..n-1; sparse indices are renumbered densely.
  std::string ToFlag() const;

 private:
  class Builder;

  std::vector<std::string> jobs_;
  std::map<std::string, std::map<int, TaskAddress>, std::less<>> tasks_;
};

// "virtual:<cluster>/<job>/<task>": a task of a virtual cluster in this
// process (actors/virtual_cluster.h), accepted wherever a cluster spec
// takes "host:port"; TaskAddress keeps it whole in `host` (port 0).
bool IsVirtualAddress(std::string_view address);

// TensorFlow's rule for job names, which appear in device names ("/job:J"):
// [a-zA-Z][_a-zA-Z0-9]*.
bool IsValidJobName(std::string_view job);

// Splits "host:port". The host is a name, an IPv4 address or a bracketed
// IPv6 literal ("[::1]:2222", returned as "::1"); the port is 1..65535.
// INVALID_ARGUMENT naming the address and what is wrong with it.
Status ParseHostPort(std::string_view address, std::string* host, uint16_t* port);

}  // namespace af
