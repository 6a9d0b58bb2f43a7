// `actorflow server`: this process becomes a worker of sessions running in
// other processes, until SIGINT or SIGTERM (or, with --idle_exit_secs,
// until its sessions are over).
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>

#include "actors/transport/connection_guard.h"
#include "actors/transport/wire_version.h"
#include "actors/worker_server.h"
#include "core/cluster_secret.h"
#include "core/cluster_spec.h"
#include "core/slurm_cluster.h"
#include "core/file_access_policy.h"
#include "core/metrics/session_counters.h"
#include "core/server_limits.h"
#include "core/net/transfer_counters.h"
#include "tools/flags.h"
#include "tools/server_metrics.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow server [--cluster SPEC --job J --task N | --port P [--host H] [--task N]]\n"
    "                        [--cpus N] [--gpus N] [--threads N] [--secret_file PATH] [--faults SPEC]\n"
    "                        [--join af://H:P] [--client_timeout_secs S] [--idle_exit_secs S]\n"
    "                        [--exit_with_parent]\n"
    "\n"
    "Hosts a worker with devices /job:J/replica:0/task:N/device:CPU:0..N-1 for\n"
    "sessions in other processes (SessionOptions::cluster or remote_workers).\n"
    "Prints `listening on H:P` once ready and serves until SIGINT or SIGTERM.\n"
    "Large tensors move on a second port of the same host, printed before it as\n"
    "`data plane on H:P` (ACTORFLOW_DATA_PLANE=off: none, they go through CAF).\n"
    "With neither --cluster nor --port, TensorFlow's TF_CONFIG environment variable\n"
    "gives the cluster and this task ({\"cluster\": {...}, \"task\": {\"type\": J,\n"
    "\"index\": N}}), so cluster managers that set it start servers unchanged.\n"
    "Without TF_CONFIG either, inside `srun` with ACTORFLOW_SLURM_JOBS=\"ps=1,worker=2\"\n"
    "(and ACTORFLOW_SLURM_PORT_BASE, default 8888), Slurm's SLURM_* variables give\n"
    "them, as TensorFlow's SlurmClusterResolver reads them (docs/clusters.md).\n"
    "\n"
    "  --cluster SPEC      \"ps=h:p,h:p;worker=h:p,...\": listen on this task's address\n"
    "  --job J             this task's job (default worker)\n"
    "  --port P            port to listen on without a cluster (default 0: any free port)\n"
    "  --host H            address to listen on (default 127.0.0.1)\n"
    "  --task N            task index in the device names (default 0)\n"
    "  --cpus N            CPU devices (default 1)\n"
    "  --gpus N            GPU devices (default: every GPU of the process; 0: none)\n"
    "  --stall_warning_ms M  report a step's Recv that waits longer (default 10000; 0: off)\n"
    "  --threads N         threads per device (default: the cores shared among devices)\n"
    "  --secret_file PATH  the cluster secret (default: the file ACTORFLOW_SECRET_FILE\n"
    "                      names); only processes holding it may use this server\n"
    "                      (mutual TLS on every connection, docs/security.md).\n"
    "                      Without one the server listens on loopback addresses only\n"
    "  --allowed_dirs D1:D2  directories whose files graphs may read and write (Save,\n"
    "                      Restore, ReadFile, readers); `any` for no limit (default: the\n"
    "                      working directory and the temporary directory)\n"
    "  --max_graph_bytes B, --max_graph_nodes N  refuse larger graphs (default 1 GiB, 4194304)\n"
    "  --max_sessions_per_client N  sessions one client process may hold open (default 64)\n"
    "  --max_connections_per_source N  connections one IPv4 address or IPv6 /64 may hold on\n"
    "                      this server's port (default 256); more are closed at once\n"
    "  --max_connections N  connections all sources together may hold there (default 4096;\n"
    "                      never more than the descriptor limit, ulimit -n, less a quarter\n"
    "                      of it or 256, whichever is more: those stay for files and peers)\n"
    "  --handshake_timeout_secs S  with a secret, close a connection that has not finished\n"
    "                      its TLS handshake S seconds after it opened (default 10)\n"
    "  --session_memory_limit BYTES  what one session's steps may hold on this server's\n"
    "                      devices at once, e.g. 4G (default: no limit)\n"
    "  --max_step_secs S   cancel a step that runs longer than S seconds, and cap the\n"
    "                      deadline clients of this server's master may ask (default: none)\n"
    "  --faults SPEC       inject stragglers and message faults into this task, e.g.\n"
    "                      \"compute=exp:20ms;transport=const:1ms;drop=0.01;dup=0.001;seed=7\"\n"
    "                      (default: the spec in ACTORFLOW_FAULTS, whose task=/job:J/task:T\n"
    "                      groups let one variable configure a whole cluster;\n"
    "                      docs/fault-tolerance.md)\n"
    "  --metrics_port P    serve Prometheus metrics on http://HOST:P/metrics, and\n"
    "                      /healthz and /readyz for probes (0: a port the kernel picks;\n"
    "                      default: none). No authentication: bind it where only the\n"
    "                      operator's network reaches\n"
    "  --metrics_host H    the address the metrics port listens on (default: --host's)\n"
    "  --join af://H:P     join the running cluster of the server at H:P as a new task\n"
    "                      of --job (default worker), beyond its spec: that server gives\n"
    "                      this task the next index of its job and tells every task of the\n"
    "                      cluster; needs --port P (and --host H), takes no --cluster\n"
    "  --client_timeout_secs S  close the af:// session of a client whose heartbeats\n"
    "                      stopped S seconds ago (a stopped or hung process that keeps\n"
    "                      its connection; default 60; 0: never)\n"
    "  --idle_exit_secs S  stop (exit 0) once sessions were opened here and none has\n"
    "                      been open for S seconds: a ps task ends with its workers,\n"
    "                      so a Slurm job step or a Kubernetes Job completes (default:\n"
    "                      serve until a signal)\n"
    "  --exit_with_parent  stop when the parent process dies (for tests and launchers)\n";

struct ServerFlags {
  WorkerServerOptions options;
  bool exit_with_parent = false;
  double idle_exit_secs = 0;  // --idle_exit_secs (0: serve until a signal)
  int metrics_port = -1;     // --metrics_port (-1: no endpoint)
  std::string metrics_host;  // --metrics_host (empty: the server's host)
  std::string cluster;      // --cluster, or TF_CONFIG's
  std::string secret_file;  // --secret_file (empty: ACTORFLOW_SECRET_FILE's)
  std::vector<std::string> allowed_dirs;  // --allowed_dirs (empty after "any": anywhere)
  bool allowed_dirs_given = false;
  ServerLimits limits;
  bool job_given = false, task_given = false, address_given = false;
  std::string join;  // --join: the "host:port" of a server of the cluster to join
};

// Takes this task's job, index and address from the cluster spec (--cluster
// or TF_CONFIG); a flag that contradicts it is an error, not an override.
Status ResolveClusterTask(ServerFlags* flags) {
  const char* tf_config = std::getenv("TF_CONFIG");
  const bool use_tf_config =
      flags->cluster.empty() && !flags->address_given && tf_config != nullptr && *tf_config;
  ClusterSpec spec;
  std::string job = flags->options.job;
  int task = flags->options.task;
  bool from_slurm = false;
  if (flags->cluster.empty() && !use_tf_config && !flags->address_given) {
    std::string slurm_job;
    int slurm_task = 0;
    AF_RETURN_IF_ERROR(ClusterFromSlurmEnvironment(&spec, &slurm_job, &slurm_task, &from_slurm));
    if (from_slurm) {
      if (!flags->job_given) job = slurm_job;
      if (!flags->task_given) task = slurm_task;
    }
  }
  if (flags->cluster.empty() && !use_tf_config && !from_slurm) return Status::OK();
  if (flags->address_given) {
    return errors::InvalidArgument(
        "--port and --host conflict with --cluster: the task's address comes from the spec");
  }
  if (from_slurm) {
    // The spec came from Slurm's environment above.
  } else if (use_tf_config) {
    std::string config_job;
    int config_task = -1;
    AF_RETURN_IF_ERROR(ClusterSpec::FromTfConfig(tf_config, &spec, &config_job, &config_task));
    if (!flags->job_given) {
      if (config_job.empty()) return errors::InvalidArgument("TF_CONFIG has no task.type; give --job");
      job = config_job;
    }
    if (!flags->task_given) task = std::max(config_task, 0);
  } else {
    AF_RETURN_IF_ERROR(ClusterSpec::FromFlag(flags->cluster, &spec));
  }
  std::string host_port;
  AF_RETURN_IF_ERROR(spec.Address(job, task, &host_port));
  AF_RETURN_IF_ERROR(ParseHostPort(host_port, &flags->options.host, &flags->options.port));
  flags->options.job = job;
  flags->options.task = task;
  // The rest of the cluster: what this server's master reaches for
  // sessions that target it (af://) without naming tasks.
  for (const TaskAddress& other : spec.AllTasks()) {
    if (other.job == job && other.task == task) continue;
    flags->options.cluster_tasks.push_back(
        RemoteTask{other.HostPort(), ClusterSpec::TaskName(other.job, other.task)});
  }
  return Status::OK();
}

Status ReadServerFlags(const Args& args, ServerFlags* flags) {
  std::vector<Flag> list;
  AF_RETURN_IF_ERROR(ParseFlags(args, {"--exit_with_parent"}, &list));
  for (const Flag& f : list) {
    // A switch given "=value" is not the switch.
    if (f.name == "--exit_with_parent" && f.value.empty()) {
      flags->exit_with_parent = true;
      continue;
    }
    int number = 0;
    bool ok = true;
    std::string_view want;  // the accepted range, for flags whose range is not obvious
    if (f.name == "--port") {
      ok = ParseInt(f.value, 0, 65535, &number);
      flags->options.port = static_cast<uint16_t>(number);
      flags->address_given = true;
    } else if (f.name == "--host") {
      ok = !f.value.empty();
      flags->options.host = f.value;
      flags->address_given = true;
    } else if (f.name == "--cluster") {
      ok = !f.value.empty();
      flags->cluster = f.value;
    } else if (f.name == "--job") {
      ok = !f.value.empty();
      flags->options.job = f.value;
      flags->job_given = true;
    } else if (f.name == "--task") {
      ok = ParseInt(f.value, 0, 1 << 20, &flags->options.task);
      flags->task_given = true;
    } else if (f.name == "--secret_file") {
      ok = !f.value.empty();
      flags->secret_file = f.value;
    } else if (f.name == "--stall_warning_ms") {
      ok = ParseInt(f.value, 0, 1 << 30, &number);
      flags->options.stall_warning_ms = number;
    } else if (f.name == "--allowed_dirs") {
      ok = !f.value.empty();
      flags->allowed_dirs_given = true;
      flags->allowed_dirs.clear();
      if (f.value != "any") {
        size_t start = 0;
        while (start <= f.value.size()) {
          const size_t colon = std::min(f.value.find(':', start), f.value.size());
          if (colon > start) flags->allowed_dirs.push_back(f.value.substr(start, colon - start));
          start = colon + 1;
        }
        ok = ok && !flags->allowed_dirs.empty();
      }
    } else if (f.name == "--max_graph_bytes" || f.name == "--max_graph_nodes" ||
               f.name == "--max_sessions_per_client") {
      ok = ParseInt(f.value, 1, std::numeric_limits<int>::max(), &number);
      int64_t& limit = f.name == "--max_graph_bytes"   ? flags->limits.max_graph_bytes
                       : f.name == "--max_graph_nodes" ? flags->limits.max_graph_nodes
                                                       : flags->limits.max_sessions_per_client;
      limit = number;
    } else if (f.name == "--max_connections_per_source" || f.name == "--max_connections") {
      ok = ParseInt(f.value, 1, 1 << 24, &number);
      want = "a count from 1 to 16777216";
      (f.name == "--max_connections" ? flags->limits.max_connections
                                     : flags->limits.max_connections_per_source) = number;
    } else if (f.name == "--handshake_timeout_secs") {
      ok = ParseDouble(f.value, 0.25, 86400, &flags->limits.handshake_timeout_secs);
      want = "seconds from 0.25 to 86400";
    } else if (f.name == "--session_memory_limit") {
      ok = ParseBytes(f.value, &flags->options.session_memory_limit);
    } else if (f.name == "--metrics_port") {
      ok = ParseInt(f.value, 0, 65535, &flags->metrics_port);
      want = "a port from 0 to 65535";
    } else if (f.name == "--metrics_host") {
      ok = !f.value.empty();
      flags->metrics_host = f.value;
    } else if (f.name == "--max_step_secs") {
      ok = ParseDouble(f.value, 0, 1e7, &flags->options.max_step_secs);
    } else if (f.name == "--join") {
      flags->join = f.value.rfind("af://", 0) == 0 ? f.value.substr(5) : f.value;
      ok = !flags->join.empty();
      want = "af://HOST:PORT of a server of the cluster";
    } else if (f.name == "--client_timeout_secs") {
      ok = ParseDouble(f.value, 0, 1e7, &flags->options.client_timeout_secs);
    } else if (f.name == "--idle_exit_secs") {
      ok = ParseDouble(f.value, 0, 1e7, &flags->idle_exit_secs);
    } else if (f.name == "--faults") {
      ok = !f.value.empty();
      flags->options.faults = f.value;
    } else if (f.name == "--cpus") {
      ok = ParseInt(f.value, 1, 1024, &flags->options.num_cpu_devices);
    } else if (f.name == "--gpus") {
      ok = ParseInt(f.value, 0, 64, &flags->options.num_gpu_devices);
    } else if (f.name == "--threads") {
      ok = ParseInt(f.value, 1, 4096, &flags->options.threads_per_device);
    } else {
      return errors::InvalidArgument("unknown flag '", f.name, "'");
    }
    if (!ok) {
      return errors::InvalidArgument("bad value '", f.value, "' for ", f.name,
                                     want.empty() ? "" : ": want ", want);
    }
  }
  if (!flags->join.empty()) {
    // The cluster and this task's index come from the cluster itself.
    if (!flags->cluster.empty() || flags->task_given) {
      return errors::InvalidArgument(
          "--join takes the cluster and this task's index from the cluster: give no --cluster "
          "or --task");
    }
    if (flags->options.port == 0) {
      return errors::InvalidArgument(
          "--join needs --port P (and --host H unless 127.0.0.1): the cluster reaches the new "
          "task there");
    }
    return Status::OK();
  }
  return ResolveClusterTask(flags);
}

// Caps the connections on the server's CAF port (the TLS port with a
// secret); returns what applies, max_connections lowered to what the
// descriptor limit allows.
actors::ConnectionGuardOptions GuardPort(const ServerFlags& flags, uint16_t port) {
  actors::ConnectionGuardOptions guard;
  guard.max_connections_per_source = flags.limits.max_connections_per_source;
  guard.max_connections =
      std::min(flags.limits.max_connections, actors::MaxGuardedConnections());
  // Without a secret CAF speaks plain BASP: there is no TLS handshake whose
  // end the guard could see.
  if (!flags.options.cluster_secret.empty()) {
    guard.handshake_timeout = std::chrono::milliseconds(
        static_cast<int64_t>(flags.limits.handshake_timeout_secs * 1000));
  }
  actors::GuardListeningPort(port, guard);
  return guard;
}

// Blocks until SIGINT or SIGTERM (returns its number) or, with
// `idle_exit_secs` > 0, until sessions were opened and none has been open
// for that long (returns 0). Polled: a session count has no wait of its own,
// and a quarter second is nothing beside the seconds asked for.
int WaitForStop(const sigset_t& stop, double idle_exit_secs, std::ostream& out) {
  if (idle_exit_secs <= 0) {
    int signal_number = 0;
    sigwait(&stop, &signal_number);
    return signal_number;
  }
  using Clock = std::chrono::steady_clock;
  const auto idle_limit = std::chrono::duration<double>(idle_exit_secs);
  Clock::time_point idle_since{};
  bool idle_before = false;
  const timespec poll{0, 250'000'000};
  while (true) {
    const int signal_number = sigtimedwait(&stop, nullptr, &poll);
    if (signal_number > 0) return signal_number;
    const bool idle = metrics::SessionsOpened()->value() > 0 && metrics::SessionsOpenNow() == 0;
    if (!idle) {
      idle_before = false;
      continue;
    }
    if (!idle_before) idle_since = Clock::now();
    idle_before = true;
    if (Clock::now() - idle_since >= idle_limit) {
      out << "actorflow server: stopping: " << metrics::SessionsOpened()->value()
          << " session(s) were opened and none has been open for " << idle_exit_secs
          << " s (--idle_exit_secs)\n";
      return 0;
    }
  }
}

int ServerMain(const Args& args, std::ostream& out, std::ostream& err) {
  ServerFlags flags;
  if (Status s = ReadServerFlags(args, &flags); !s.ok()) {
    err << "actorflow server: " << s.message() << "\n\n" << kUsage;
    return kExitUsage;
  }
  // Block the stop signals before any thread starts, so that every thread
  // inherits the mask and only sigwait below sees them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  // A parent that stopped reading our output (a launcher, a benchmark) must
  // not turn the farewell lines into a kill: the server still stops cleanly.
  signal(SIGPIPE, SIG_IGN);
  const pid_t parent = getppid();
  if (flags.exit_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) return kExitError;  // the parent is already gone
  }
  std::unique_ptr<WorkerServer> server;
  // Graphs from other processes touch files only here (docs/security.md).
  Status s = SetAllowedDirectories(flags.allowed_dirs_given ? flags.allowed_dirs
                                                            : DefaultServerDirectories());
  SetServerLimits(flags.limits);
  if (s.ok()) s = LoadClusterSecret(flags.secret_file, &flags.options.cluster_secret);
  if (s.ok() && !flags.join.empty()) {
    s = JoinCluster(flags.join, &flags.options, std::chrono::seconds(30));
    if (s.ok()) {
      out << "actorflow server: joined the cluster of af://" << flags.join << " as "
          << ClusterSpec::TaskName(flags.options.job, flags.options.task) << " ("
          << flags.options.cluster_tasks.size() + 1 << " tasks)\n";
    }
  }
  if (s.ok()) s = WorkerServer::Start(flags.options, &server);
  if (!s.ok()) {
    err << "actorflow server: " << s << "\n";
    return kExitError;
  }
  const uint16_t port = server->port();
  const actors::ConnectionGuardOptions guard = GuardPort(flags, port);
  std::atomic<bool> serving{true};
  std::unique_ptr<metrics::HttpEndpoint> metrics_endpoint;
  if (flags.metrics_port >= 0) {
    const std::string host = flags.metrics_host.empty() ? flags.options.host : flags.metrics_host;
    s = StartServerMetrics(host, static_cast<uint16_t>(flags.metrics_port), &serving,
                           &metrics_endpoint);
    if (!s.ok()) {
      err << "actorflow server: " << s << "\n";
      return kExitError;
    }
    out << "actorflow server: metrics on http://" << metrics_endpoint->address()
        << "/metrics (and /healthz, /readyz)\n";
  }
  // Before the "listening on" line, which tells launchers and tests that the
  // server is ready: whoever reads up to it has this one too.
  if (server->data_address().empty()) {
    out << "actorflow server: no data plane: large tensors cross through CAF in chunks\n";
  } else {
    out << "actorflow server: data plane on " << server->data_address() << "\n";
  }
  out << "actorflow server: Actorflow " << LibraryVersion() << ", wire protocol "
      << WireProtocolVersion() << "\n";
  out << "actorflow server: listening on " << flags.options.host << ":" << port;
  if (flags.options.cluster_secret.empty()) {
    out << " without authentication (loopback only; give --secret_file to listen on other "
           "addresses)";
  } else {
    out << " (cluster secret required)";
  }
  out << "\n";
  const std::vector<std::string> allowed = AllowedDirectories();
  out << "  graphs may use files " << (allowed.empty() ? "anywhere (--allowed_dirs any)" : "under");
  for (const std::string& dir : allowed) out << " " << dir;
  out << "\n";
  out << "  connections to port " << port << ": at most " << guard.max_connections
      << ", " << guard.max_connections_per_source << " from one source";
  if (guard.max_connections < flags.limits.max_connections) {
    out << " (--max_connections " << flags.limits.max_connections
        << " lowered: the descriptor limit leaves room for " << guard.max_connections << ")";
  }
  if (guard.handshake_timeout.count() > 0) {
    out << "; TLS handshake within " << flags.limits.handshake_timeout_secs << " s";
  }
  out << "\n";
  for (const std::string& device : server->device_names()) out << "  device " << device << "\n";
  out.flush();
  const int signal_number = WaitForStop(stop, flags.idle_exit_secs, out);
  serving.store(false);  // /readyz says so while the server stops
  if (signal_number != 0) out << "actorflow server: stopping (signal " << signal_number << ")\n";
  out.flush();
  // The senders count a tensor once its last byte left; a peer may have read
  // it (and this process been told to stop) a moment before that. Stopping
  // the server joins them, so the totals below are final.
  server.reset();
  const actors::ConnectionGuardCounts connections = actors::GetConnectionGuardCounts();
  actors::StopConnectionGuard();
  out << "actorflow server: connections to port " << port << ": " << connections.peak_open
      << " open at most at once; closed at accept: " << connections.refused_per_source
      << " over --max_connections_per_source, " << connections.refused_total
      << " over --max_connections; " << connections.handshake_timeouts
      << " shut down before finishing the TLS handshake\n";
  const net::TransferCounters& moved = net::TransferCounters::Global();
  out << "actorflow server: the data plane received " << moved.tensors_received.load()
      << " tensors (" << moved.bytes_received.load() << " bytes) and sent "
      << moved.tensors_sent.load() << " (" << moved.bytes_sent.load() << " bytes); "
      << moved.fallbacks.load() << " took the chunk path\n";
  out.flush();
  return kExitOk;
}

}  // namespace

extern const Subcommand kServerCommand{
    "server", "serve this process as a worker for sessions in other processes", kUsage,
    &ServerMain};

}  // namespace af::tools
