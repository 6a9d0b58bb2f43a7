// The plan of a local cluster before anything runs: each task's port, log,
// command line and environment (TF_CONFIG, the secret file, its task name),
// the cluster spec, and the log directory with a fresh cluster secret in it.
// The launcher (cluster_launcher.cc) then runs and supervises the tasks.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <ios>
#include <string>
#include <vector>

#include "core/status.h"
#include "tools/cluster_launcher.h"

namespace af::tools {

using Clock = std::chrono::steady_clock;

struct ClusterTask {
  std::string job;
  int index = 0;
  std::string address;
  std::string exec_path;          // looked up in PATH when it has no '/'
  std::vector<std::string> argv;
  std::vector<std::string> env;   // the whole environment, "NAME=value"
  std::string log_path;
  std::string tf_config;  // its TF_CONFIG value

  pid_t pid = -1;  // running (or not yet reaped) when > 0
  int restarts = 0;
  bool ended = false;  // will not run again
  bool restart_pending = false;
  Clock::time_point restart_at;
  int last_status = -1;  // wait status of its last run, -1 before any ended
  // Where this run's output starts in the (appended) log, so that a
  // restarted server's "listening on" is not the previous run's.
  std::streamoff log_start = 0;
  bool listening = false;
  Clock::time_point listen_deadline;

  std::string Name() const { return job + "-" + std::to_string(index); }
  bool is_ps() const { return job == "ps"; }
  bool is_chief() const { return job == "worker" && index == 0; }
};

struct ClusterPlan {
  std::string logdir;
  std::string secret_path;
  std::string spec;                // "ps=h:p,...;worker=h:p,..."
  std::vector<ClusterTask> tasks;  // ps 0..N-1, then worker 0..M-1
};

// Picks the ports (options.base_port, or ones the kernel says are free),
// makes the log directory and its secret, and lays out every task.
Status PlanCluster(const ClusterLaunchOptions& options, ClusterPlan* out);

}  // namespace af::tools
