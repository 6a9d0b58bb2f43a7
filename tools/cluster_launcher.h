// `actorflow cluster`'s supervisor: starts the parameter-server tasks of a
// local cluster as `actorflow server` children, runs a program per worker
// task with TF_CONFIG naming the cluster and its task, restarts tasks that
// die when asked to, and ends with the chief (worker 0).
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace af::tools {

// Whose output `actorflow cluster` prints on its console, line by line with
// the task's name, besides writing every task's own log.
enum class StreamOutput { kNone, kChief, kAll };

struct ClusterLaunchOptions {
  int num_ps = 0;
  int num_workers = 1;
  std::string logdir;  // empty: a new directory under $TMPDIR (or /tmp)
  bool restart_on_failure = false;
  int max_restarts = 3;  // per task, with restart_on_failure
  std::string host = "127.0.0.1";
  int base_port = 0;  // 0: ports the kernel picks as free
  std::vector<std::string> program;  // argv run for every worker task
  std::chrono::milliseconds start_timeout{30000};  // until a ps says "listening on"
  std::chrono::milliseconds stop_grace{10000};     // between SIGTERM and SIGKILL
  StreamOutput stream = StreamOutput::kChief;
};

// Runs the cluster until the chief ends (or SIGINT/SIGTERM arrive) and
// returns the process exit code: the chief's (128+signal if a signal ended
// it), 1 if the cluster could not start. Status lines and the streamed
// tasks' lines go to `out` (the chief's last line again at the very end),
// failures to `err`.
int RunCluster(const ClusterLaunchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace af::tools
