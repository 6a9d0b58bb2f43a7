// `actorflow cluster`: a local stand-in for a cluster manager (Kubernetes,
// Slurm, torchrun): parameter servers, workers running a program with
// TF_CONFIG, logs per task, restarts, and the chief's exit code.
#include <algorithm>

#include "core/cluster_spec.h"
#include "tools/cluster_launcher.h"
#include "tools/flags.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow cluster --ps N --workers M [--logdir D] [--restart never|on-failure]\n"
    "                         [--max_restarts K] [--host 127.0.0.1] [--base_port P]\n"
    "                         [--stream chief|all|none] -- PROGRAM ARGS...\n"
    "\n"
    "Runs a cluster on this machine as a cluster manager would: N parameter-server\n"
    "tasks, each an `actorflow server --cluster SPEC --job ps --task i`, and M worker\n"
    "tasks, each a run of PROGRAM with TensorFlow's TF_CONFIG set to\n"
    "  {\"cluster\": {\"ps\": [...], \"worker\": [...]}, \"task\": {\"type\": \"worker\", \"index\": i}}\n"
    "A worker serves its own task's address (e.g. PROGRAM is `actorflow server`,\n"
    "which reads TF_CONFIG) and/or runs a session. Workers start once every ps\n"
    "says \"listening on\" (within 30 s). Prints each task's address, pid and log.\n"
    "\n"
    "Worker 0 is the chief: when it ends, the other tasks get SIGTERM and its exit\n"
    "code becomes this command's (128+signal if a signal killed it). SIGINT and\n"
    "SIGTERM are passed to every task; a second one, or 10 s, and they get SIGKILL.\n"
    "Processes a task leaves behind (a shell's background jobs) are stopped too.\n"
    "\n"
    "  --ps N              parameter-server tasks (0 or more)\n"
    "  --workers M         worker tasks running PROGRAM (1 or more)\n"
    "  --logdir D          each task's stdout and stderr go to D/<job>-<index>.log\n"
    "                      (default: a new directory /tmp/actorflow-cluster-XXXXXX)\n"
    "  --stream WHOSE      whose lines this command also prints as they come, each\n"
    "                      prefixed \"[worker-0] \": chief (default), all or none;\n"
    "                      the chief's last line is repeated at the very end\n"
    "  --restart POLICY    never (default): a ps task or a worker that dies is\n"
    "                      reported and the chief goes on; on-failure: a ps task\n"
    "                      that exits, or a worker that exits nonzero or by a\n"
    "                      signal, runs again at the same address with the same\n"
    "                      TF_CONFIG, its log appended\n"
    "  --max_restarts K    restarts per task with on-failure (default 3)\n"
    "  --host H            address of every task (default 127.0.0.1)\n"
    "  --base_port P       ports P, P+1, ... for ps 0..N-1, then worker 0..M-1\n"
    "                      (default: free ports the kernel picks)\n";

Status ReadClusterFlags(const Args& args, ClusterLaunchOptions* options) {
  const auto dashes = std::find(args.begin(), args.end(), "--");
  if (dashes == args.end()) return errors::InvalidArgument("missing '-- PROGRAM ARGS...'");
  options->program.assign(dashes + 1, args.end());
  if (options->program.empty() || options->program[0].empty()) {
    return errors::InvalidArgument("missing PROGRAM after '--'");
  }
  std::vector<Flag> list;
  AF_RETURN_IF_ERROR(ParseFlags(Args(args.begin(), dashes), {}, &list));
  bool ps_given = false, workers_given = false;
  for (const Flag& f : list) {
    bool ok = true;
    if (f.name == "--ps") {
      ok = ParseInt(f.value, 0, 1000, &options->num_ps);
      ps_given = true;
    } else if (f.name == "--workers") {
      ok = ParseInt(f.value, 1, 1000, &options->num_workers);
      workers_given = true;
    } else if (f.name == "--logdir") {
      ok = !f.value.empty();
      options->logdir = f.value;
    } else if (f.name == "--restart") {
      ok = f.value == "never" || f.value == "on-failure";
      options->restart_on_failure = f.value == "on-failure";
    } else if (f.name == "--stream") {
      ok = f.value == "chief" || f.value == "all" || f.value == "none";
      options->stream = f.value == "all"    ? StreamOutput::kAll
                        : f.value == "none" ? StreamOutput::kNone
                                            : StreamOutput::kChief;
    } else if (f.name == "--max_restarts") {
      ok = ParseInt(f.value, 0, 1000, &options->max_restarts);
    } else if (f.name == "--host") {
      options->host = f.value;
      std::string host;
      uint16_t port = 0;
      const bool ipv6 = f.value.find(':') != std::string::npos;
      ok = !f.value.empty() &&
           ParseHostPort((ipv6 ? "[" + f.value + "]" : f.value) + ":1", &host, &port).ok();
    } else if (f.name == "--base_port") {
      ok = ParseInt(f.value, 1, 65535, &options->base_port);
    } else {
      return errors::InvalidArgument("unknown flag '", f.name, "'");
    }
    if (!ok) return errors::InvalidArgument("bad value '", f.value, "' for ", f.name);
  }
  if (!ps_given) return errors::InvalidArgument("--ps is required (0 for none)");
  if (!workers_given) return errors::InvalidArgument("--workers is required");
  if (options->base_port > 0 &&
      options->base_port + options->num_ps + options->num_workers - 1 > 65535) {
    return errors::InvalidArgument("--base_port ", options->base_port, " leaves no room for ",
                                   options->num_ps + options->num_workers,
                                   " tasks below port 65536");
  }
  return Status::OK();
}

int ClusterMain(const Args& args, std::ostream& out, std::ostream& err) {
  ClusterLaunchOptions options;
  if (Status s = ReadClusterFlags(args, &options); !s.ok()) {
    err << "actorflow cluster: " << s.message() << "\n\n" << kUsage;
    return kExitUsage;
  }
  return RunCluster(options, out, err);
}

}  // namespace

extern const Subcommand kClusterCommand{
    "cluster", "run a local cluster: ps servers and a program per worker, with TF_CONFIG",
    kUsage, &ClusterMain};

}  // namespace af::tools
