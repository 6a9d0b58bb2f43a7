// af_split_loop: a while loop whose body spans two processes. Worker 0
// holds the loop variables and the condition (i < n); worker 1 computes
// half of every iteration's body (x = 0.5 x + i), so each iteration sends
// i, x and the loop condition to worker 1 and x back.
//
//   actorflow cluster --workers 2 -- af_split_loop [--iterations N]
//
// Every task serves its own address from TF_CONFIG; worker 0 also runs the
// loop, prints the result and the time per iteration, and checks the
// result against the same loop in plain C++.
#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <actorflow/actors/worker_server.h>
#include <actorflow/client/client_session.h>
#include <actorflow/client/control_flow/while_loop.h>
#include <actorflow/client/standard_ops.h>
#include <actorflow/core/cluster_secret.h>
#include <actorflow/core/cluster_spec.h>
#include <actorflow/core/flag_spelling.h>
#include <actorflow/core/logging.h>

namespace af::split_loop {
namespace {

std::string Cpu(int task) { return ClusterSpec::TaskName("worker", task) + "/device:CPU:0"; }

Status Serve(const ClusterSpec& spec, int task, std::unique_ptr<WorkerServer>* server) {
  std::string address;
  AF_RETURN_IF_ERROR(spec.Address("worker", task, &address));
  WorkerServerOptions options;
  AF_RETURN_IF_ERROR(ParseHostPort(address, &options.host, &options.port));
  options.job = "worker";
  options.task = task;
  AF_RETURN_IF_ERROR(LoadClusterSecret("", &options.cluster_secret));
  return WorkerServer::Start(options, server);
}

// The loop: for (i = 0; i < n; ++i) x = 0.5 x + i, starting from x = 1.
struct SplitLoop {
  SplitLoop() : root(Scope::NewRootScope()) {
    const Scope here = root.WithDevice(Cpu(0));
    n = ops::Placeholder(here.WithOpName("n"), DT_INT32);
    std::vector<Output> out;
    const Status s = WhileLoop(
        here, {ops::Const(here, 0), ops::Const(here, 1.0f)},
        [&](const Scope& scope, const std::vector<Output>& v, Output* cond) {
          *cond = ops::Less(scope, v[0], n);
          return scope.status();
        },
        [](const Scope& scope, const std::vector<Output>& v, std::vector<Output>* next) {
          const Scope there = scope.WithDevice(Cpu(1));
          Output half = ops::Mul(there, v[1], 0.5f);
          *next = {ops::Add(scope, v[0], 1),
                   ops::Add(there, half, ops::Cast(there, v[0], DT_FLOAT))};
          return scope.status();
        },
        &out);
    if (!s.ok()) root.UpdateStatus(s);
    if (out.size() == 2) x = out[1];
  }
  Scope root;
  Output n, x;
};

int RunChief(const ClusterSpec& spec, int iterations) {
  SplitLoop loop;
  if (!loop.root.ok()) {
    AF_LOG(ERROR) << "building the loop: " << loop.root.status().ToString();
    return 1;
  }
  SessionOptions options;
  options.cluster = spec;
  options.setup_timeout_ms = 30000;
  options.default_timeout_ms = 60000;
  ClientSession session(loop.root, options);
  std::vector<Tensor> out;
  // The first run places, partitions and registers the graph; time the second.
  Status s = session.Run({{loop.n, iterations}}, {loop.x}, &out);
  const auto start = std::chrono::steady_clock::now();
  if (s.ok()) s = session.Run({{loop.n, iterations}}, {loop.x}, &out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 1;
  }
  float expected = 1.0f;
  for (int i = 0; i < iterations; ++i) expected = expected * 0.5f + static_cast<float>(i);
  const float got = out[0].scalar<float>();
  std::printf("x after %d iterations: %.6g (plain C++: %.6g)\n", iterations, got, expected);
  std::printf("%.2f us per iteration, body split over %s and %s\n",
              iterations > 0 ? seconds * 1e6 / iterations : 0.0, Cpu(0).c_str(),
              Cpu(1).c_str());
  if (std::fabs(got - expected) > 1e-5f * std::max(1.0f, std::fabs(expected))) {
    AF_LOG(ERROR) << "wrong result";
    return 1;
  }
  return 0;
}

int Main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  SnakeCaseFlags(argc, argv);
  if (std::string error; !ConsumeLogLevelFlag(&argc, argv, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
  int iterations = 1000;
  if (argc == 3 && std::strcmp(argv[1], "--iterations") == 0 && std::atoi(argv[2]) >= 0) {
    iterations = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: af_split_loop [--iterations N]\n");
    return 2;
  }
  const char* tf_config = std::getenv("TF_CONFIG");
  ClusterSpec spec;
  std::string job;
  int task = -1;
  Status s = tf_config == nullptr
                 ? errors::FailedPrecondition("TF_CONFIG is not set; run me under "
                                              "`actorflow cluster --workers 2`")
                 : ClusterSpec::FromTfConfig(tf_config, &spec, &job, &task);
  if (s.ok() && (job != "worker" || spec.num_tasks("worker") < 2))
    s = errors::InvalidArgument("needs two worker tasks (actorflow cluster --workers 2)");
  // Blocked before any runtime thread starts so that only sigwait takes them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  std::unique_ptr<WorkerServer> server;
  if (s.ok()) s = Serve(spec, task, &server);
  if (!s.ok()) {
    AF_LOG(ERROR) << s.ToString();
    return 2;
  }
  if (task == 0) return RunChief(spec, iterations);
  int signal = 0;
  sigwait(&stop, &signal);
  return 0;
}

}  // namespace
}  // namespace af::split_loop

int main(int argc, char** argv) { return af::split_loop::Main(argc, argv); }
