// af_cluster_demo: the program `actorflow cluster` runs for every worker
// task. Each task serves its own address from TF_CONFIG in-process (as
// TensorFlow's tf.distribute.Server does); the chief (worker 0) also runs a
// session over the whole cluster whose graph uses both ps tasks and both
// worker tasks, and rides out a task that dies and comes back.
//
//   actorflow cluster --ps 2 --workers 2 [--restart on-failure] -- af_cluster_demo
//       [--steps N] [--interval_ms M]
#include <signal.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include <actorflow/actors/worker_server.h>
#include <actorflow/client/client_session.h>
#include <actorflow/client/standard_ops.h>
#include <actorflow/core/cluster_secret.h>
#include <actorflow/core/cluster_spec.h>
#include <actorflow/core/flag_spelling.h>
#include <actorflow/core/logging.h>

namespace af::cluster_demo {
namespace {

struct Options {
  int steps = 20;
  int interval_ms = 500;
};

struct Task {
  ClusterSpec spec;
  std::string job;
  int index = -1;
};

// The graph of the chief's steps, y = (2x + 3x) + 1, with x fed on the
// chief's task, one product on each ps task and the sum on worker 1.
struct DemoGraph {
  DemoGraph() : root(Scope::NewRootScope()) {
    const Scope ps0 = root.WithDevice(Cpu("ps", 0)), ps1 = root.WithDevice(Cpu("ps", 1));
    const Scope worker0 = root.WithDevice(Cpu("worker", 0));
    const Scope worker1 = root.WithDevice(Cpu("worker", 1));
    x = ops::Placeholder(worker0.WithOpName("x"), DT_FLOAT);
    auto doubled = ops::Mul(ps0.WithOpName("doubled"), x, 2.0f);
    auto tripled = ops::Mul(ps1.WithOpName("tripled"), x, 3.0f);
    auto sum = ops::Add(worker1.WithOpName("sum"), doubled, tripled);
    y = ops::Add(worker0.WithOpName("y"), sum, 1.0f);
  }
  static std::string Cpu(std::string_view job, int task) {
    return ClusterSpec::TaskName(job, task) + "/device:CPU:0";
  }
  Scope root;
  Output x, y;
};

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const int value = std::atoi(argv[++i]);
    if (arg == "--steps" && value > 0) {
      options->steps = value;
    } else if (arg == "--interval_ms" && value >= 0) {
      options->interval_ms = value;
    } else {
      return false;
    }
  }
  return true;
}

Status ReadTask(Task* task) {
  const char* tf_config = std::getenv("TF_CONFIG");
  if (tf_config == nullptr || *tf_config == '\0') {
    return errors::FailedPrecondition("TF_CONFIG is not set; run me under `actorflow cluster`");
  }
  AF_RETURN_IF_ERROR(ClusterSpec::FromTfConfig(tf_config, &task->spec, &task->job, &task->index));
  if (task->job != "worker") {
    return errors::InvalidArgument("TF_CONFIG's task is ", task->job, ", not a worker");
  }
  // The graph pins nodes on ps 0, ps 1, worker 0 and worker 1.
  if (task->spec.num_tasks("ps") < 2 || task->spec.num_tasks("worker") < 2) {
    return errors::InvalidArgument("the demo needs --ps 2 (or more) and --workers 2 (or more)");
  }
  return Status::OK();
}

Status ServeOwnTask(const Task& task, std::unique_ptr<WorkerServer>* server) {
  std::string address;
  AF_RETURN_IF_ERROR(task.spec.Address(task.job, task.index, &address));
  WorkerServerOptions options;
  AF_RETURN_IF_ERROR(ParseHostPort(address, &options.host, &options.port));
  options.job = task.job;
  options.task = task.index;
  // The launcher's credentials (ACTORFLOW_SECRET_FILE), as the ps servers
  // and this task's own session use them.
  AF_RETURN_IF_ERROR(LoadClusterSecret("", &options.cluster_secret));
  AF_RETURN_IF_ERROR(WorkerServer::Start(options, server));
  std::printf("%s listening on %s\n", ClusterSpec::TaskName(task.job, task.index).c_str(),
              address.c_str());
  return Status::OK();
}

// SIGINT or SIGTERM if one arrived within `ms` (they are blocked and taken
// here, so the wait between steps is also the place that notices them).
int WaitForStopSignal(const sigset_t& stop, int ms) {
  const timespec wait{ms / 1000, (ms % 1000) * 1000000L};
  const int s = sigtimedwait(&stop, nullptr, &wait);
  return s > 0 ? s : 0;
}

void PrintNodesPerTask(const RunMetadata& metadata) {
  std::map<std::string, int> per_task;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    const std::string task = dev.device().substr(0, dev.device().find("/device:"));
    per_task[task] += dev.node_stats_size();
  }
  std::printf("  nodes run per task:");
  for (const auto& [task, nodes] : per_task) std::printf(" %s=%d", task.c_str(), nodes);
  std::printf("\n");
}

std::unique_ptr<ClientSession> OpenSession(const DemoGraph& graph, const ClusterSpec& spec) {
  SessionOptions options;
  options.cluster = spec;
  // Long enough for a restarted task to come back on its address.
  options.setup_timeout_ms = 30000;
  options.default_timeout_ms = 30000;
  return std::make_unique<ClientSession>(graph.root, options);
}

// One step; the first of each session is traced to show where nodes ran.
Status RunStep(const ClientSession& session, const DemoGraph& graph, int step, bool traced) {
  RunOptions run_options;
  if (traced) run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  const float x = static_cast<float>(step);
  AF_RETURN_IF_ERROR(session.Run(run_options, {{graph.x, x}}, {graph.y}, {}, &out, &metadata));
  std::printf("step %d: x = %g, y = %g\n", step, x, out[0].scalar<float>());
  if (traced) PrintNodesPerTask(metadata);
  return Status::OK();
}

bool TaskWentAway(const Status& s) {
  return s.code() == Code::UNAVAILABLE || s.code() == Code::ABORTED;
}

// The chief's loop: `steps` steps, a new session whenever a task was lost.
int RunChief(const Task& task, const Options& options, const sigset_t& stop) {
  constexpr int kMaxSessions = 10;
  const DemoGraph graph;
  std::unique_ptr<ClientSession> session = OpenSession(graph, task.spec);
  int sessions = 1;
  bool traced = true;
  for (int step = 1; step <= options.steps;) {
    Status s = session->status().ok() ? RunStep(*session, graph, step, traced) : session->status();
    if (s.ok()) {
      traced = false;
      ++step;
    } else if (TaskWentAway(s) && sessions < kMaxSessions) {
      std::printf("step %d failed: %s\n  opening a new session (waiting up to 30 s for the "
                  "cluster)\n",
                  step, s.ToString().c_str());
      session.reset();
      session = OpenSession(graph, task.spec);
      ++sessions;
      traced = true;
      continue;
    } else {
      AF_LOG(ERROR) << "step " << step << ": " << s.ToString();
      return 1;
    }
    if (const int signal = WaitForStopSignal(stop, options.interval_ms); signal != 0) {
      std::printf("stopping (signal %d) before step %d\n", signal, step);
      return 128 + signal;
    }
  }
  std::printf("done: %d steps, %d session(s)\n", options.steps, sessions);
  return 0;
}

int Main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);  // the launcher's log shows each step as it happens
  SnakeCaseFlags(argc, argv);
  if (std::string error; !ConsumeLogLevelFlag(&argc, argv, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr, "usage: af_cluster_demo [--steps N] [--interval_ms M]\n");
    return 2;
  }
  Task task;
  if (Status s = ReadTask(&task); !s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 2;
  }
  // Blocked before any runtime thread starts, so that every thread
  // inherits the mask and only the waits here take the signals.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  std::unique_ptr<WorkerServer> server;
  if (Status s = ServeOwnTask(task, &server); !s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 1;
  }
  if (task.index == 0) return RunChief(task, options, stop);
  int signal = 0;
  sigwait(&stop, &signal);
  std::printf("stopping (signal %d)\n", signal);
  return 0;
}

}  // namespace
}  // namespace af::cluster_demo

int main(int argc, char** argv) { return af::cluster_demo::Main(argc, argv); }
