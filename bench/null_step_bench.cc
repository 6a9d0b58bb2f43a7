// OSDI 2016 Fig. 7 on one machine: the time of a null training step —
// every worker fetches the variables from the parameter-server tasks,
// computes a trivial update and applies it there — with P ps tasks
// (`actorflow server` processes, 16 by default as in the paper) and 1, 2,
// 4, 8 worker processes stepping at the same time, for three models:
//   scalar  one 4-byte variable per ps task;
//   dense   100 MB of variables spread over the ps tasks (whole tensors
//           cross both ways every step);
//   sparse  a 1 GB embedding spread over the ps tasks by rows, of which a
//           step gathers 32 random rows and scatter-adds their update.
// The paper's medians with one worker: 1.8 ms, 147 ms, 5–20 ms. Here every
// process shares the machine's cores, so more workers also means less CPU
// each: read the figures as this machine's, not the paper's cluster's.
//
//   bench_null_step [--ps 16] [--workers 1,2,4,8] [--models scalar,dense,sparse]
//                   [--seconds 3] [--dense-mb 100] [--embedding-mb 1024]
//                   [--mode real|virtual|validate] (--virtual: --mode virtual)
//                   [--latency-us L] [--bandwidth-gbs B]
//
// --mode virtual runs the same step in a virtual cluster (one process, the
// tasks as actors, actors/virtual_cluster.h): 16 ps tasks and 1..100
// worker tasks (default --workers 1,2,4,8,16,32,64,100, models scalar and
// sparse), each worker with its own client thread, session and master in
// this process, its compute on its own task's device. The transport model
// defaults to TransportModel::Loopback(); --latency-us and --bandwidth-gbs
// override it. --mode validate compares the two for 2 ps + 3 workers
// (scalar and sparse unless --models says otherwise): real processes, then
// the virtual cluster, and their ratio.
//
// Each worker is this binary again (--role worker), with its own session
// (its master in its own process, as a TensorFlow worker's client); all of
// them measure during the same window of wall time, and the figures are
// the median, p10 and p90 of every step of every worker in the window.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "bench/bench_servers.h"
#include "actors/virtual_cluster.h"
#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  int ps = 16;
  std::vector<int> workers = {1, 2, 4, 8};
  std::vector<std::string> models = {"scalar", "dense", "sparse"};
  double seconds = 3;
  int64_t dense_mb = 100;
  int64_t embedding_mb = 1024;
  std::string mode = "real";  // real | virtual | validate
  double latency_us = -1;     // -1: the default transport model's
  double bandwidth_gbs = -1;
  bool workers_set = false, models_set = false;
  // --role worker (internal)
  std::string role, cluster, model;
  int64_t start_ns = 0;  // wall-clock (system_clock) start of the window
};

constexpr int64_t kRowFloats = 256;  // 1 KiB embedding rows
constexpr int kSparseRows = 32;

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--virtual") {
      args.push_back("--mode");
      args.push_back("virtual");
    } else {
      args.push_back(argv[i]);
    }
  }
  if (args.size() % 2 != 0) CheckOk(errors::InvalidArgument("flag without a value"), "flags");
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    const std::string key = args[i], value = args[i + 1];
    if (key == "--ps") f.ps = std::atoi(value.c_str());
    else if (key == "--mode") f.mode = value;
    else if (key == "--latency-us") f.latency_us = std::atof(value.c_str());
    else if (key == "--bandwidth-gbs") f.bandwidth_gbs = std::atof(value.c_str());
    else if (key == "--workers") {
      f.workers_set = true;
      f.workers.clear();
      for (const std::string& w : Split(value, ',')) f.workers.push_back(std::atoi(w.c_str()));
    } else if (key == "--models") {
      f.models_set = true;
      f.models = Split(value, ',');
    }
    else if (key == "--seconds") f.seconds = std::atof(value.c_str());
    else if (key == "--dense-mb") f.dense_mb = std::atoll(value.c_str());
    else if (key == "--embedding-mb") f.embedding_mb = std::atoll(value.c_str());
    else if (key == "--role") f.role = value;
    else if (key == "--cluster") f.cluster = value;
    else if (key == "--model") f.model = value;
    else if (key == "--start-ns") f.start_ns = std::atoll(value.c_str());
    else CheckOk(errors::InvalidArgument("unknown flag ", key), "flags");
  }
  if (f.ps < 1) CheckOk(errors::InvalidArgument("--ps must be at least 1"), "flags");
  if (f.mode != "real" && f.mode != "virtual" && f.mode != "validate")
    CheckOk(errors::InvalidArgument("--mode must be real, virtual or validate"), "flags");
  if (f.mode != "real" && !f.models_set) f.models = {"scalar", "sparse"};
  if (f.mode == "virtual" && !f.workers_set) f.workers = {1, 2, 4, 8, 16, 32, 64, 100};
  return f;
}

std::string PsDevice(int task) { return ClusterSpec::TaskName("ps", task) + "/device:CPU:0"; }
const char* kWorkerDevice = "/job:localhost/replica:0/task:0/device:CPU:0";

Output ShapeConst(const Scope& scope, const std::vector<int64_t>& dims) {
  Tensor t(DT_INT64, TensorShape{static_cast<int64_t>(dims.size())});
  std::copy(dims.begin(), dims.end(), t.data<int64_t>());
  return ops::Const(scope, Input::Initializer(t));
}

// The null step's graph: per ps task a variable (filled there, so nothing
// large crosses at initialization), read by the worker, scaled by a tiny
// constant, and added back on the ps task.
struct NullStepGraph {
  NullStepGraph(const std::string& model, const Flags& f,
                const std::string& worker_device = kWorkerDevice)
      : root(Scope::NewRootScope()) {
    const Scope worker = root.WithDevice(worker_device);
    std::vector<Operation> applies;
    for (int t = 0; t < f.ps; ++t) {
      const Scope ps = root.WithDevice(PsDevice(t));
      const std::string name = model + "/v" + std::to_string(t);
      Output value;
      if (model == "scalar") {
        value = ops::Fill(ps, ShapeConst(ps, {}), 1.0f);
      } else if (model == "dense") {
        const int64_t floats = f.dense_mb * (1 << 20) / 4 / f.ps;
        value = ops::Fill(ps, ShapeConst(ps, {floats}), 1.0f);
      } else {
        rows_per_ps = f.embedding_mb * (1 << 20) / 4 / kRowFloats / f.ps;
        value = ops::Fill(ps, ShapeConst(ps, {rows_per_ps, kRowFloats}), 1.0f);
      }
      Variable var(ps.WithOpName(name), value);
      initializers.push_back(var.initializer);
      if (model == "sparse") {
        auto rows = ops::Placeholder(worker.WithOpName(name + "/rows"), DT_INT64);
        auto gathered = ops::Gather(ps, var, rows);
        auto delta = ops::Mul(worker, gathered, 1e-6f);
        applies.push_back(ops::ScatterAdd(ps, var, rows, delta).operation);
        row_feeds.push_back(rows);
      } else {
        auto fetched = ops::Identity(worker, var);
        auto delta = ops::Mul(worker, fetched, 1e-6f);
        applies.push_back(ops::AssignAdd(ps, var, delta).operation);
      }
    }
    step = ops::NoOp(root.WithControlDependencies(applies).WithOpName("null_step"));
  }
  // 32 random rows of the whole embedding, each fed to the ps task that
  // holds it (row r lives on task r / rows_per_ps).
  ClientSession::FeedType SparseFeeds(std::mt19937_64* rng) const {
    std::vector<std::vector<int64_t>> rows(row_feeds.size());
    std::uniform_int_distribution<int64_t> pick(0, rows_per_ps * row_feeds.size() - 1);
    for (int i = 0; i < kSparseRows; ++i) {
      const int64_t r = pick(*rng);
      rows[r / rows_per_ps].push_back(r % rows_per_ps);
    }
    ClientSession::FeedType feeds;
    for (size_t t = 0; t < rows.size(); ++t) {
      Tensor indices(DT_INT64, TensorShape{static_cast<int64_t>(rows[t].size())});
      std::copy(rows[t].begin(), rows[t].end(), indices.data<int64_t>());
      feeds.emplace(row_feeds[t], indices);
    }
    return feeds;
  }
  Scope root;
  std::vector<Operation> initializers;
  std::vector<Output> row_feeds;
  int64_t rows_per_ps = 0;
  Operation step;
};

SessionOptions ClusterOptions(const std::string& spec) {
  SessionOptions options;
  CheckOk(ClusterSpec::FromFlag(spec, &options.cluster), "cluster spec");
  options.default_timeout_ms = 120000;
  return options;
}

// One worker process: steps from start_ns for `seconds`, printing each
// step's milliseconds on one line.
int RunWorker(const Flags& f) {
  NullStepGraph graph(f.model, f);
  ClientSession session(graph.root, ClusterOptions(f.cluster));
  CheckOk(session.status(), "worker session");
  std::mt19937_64 rng(static_cast<uint64_t>(getpid()));
  auto step = [&] {
    const ClientSession::FeedType feeds =
        f.model == "sparse" ? graph.SparseFeeds(&rng) : ClientSession::FeedType{};
    CheckOk(session.Run(feeds, {}, {graph.step}, nullptr), "null step");
  };
  for (int i = 0; i < 3; ++i) step();  // plans registered, buffers warm
  const auto start = std::chrono::system_clock::time_point(std::chrono::nanoseconds(f.start_ns));
  std::this_thread::sleep_until(start);
  const auto end = Clock::now() + std::chrono::duration<double>(f.seconds);
  std::string line;
  int steps = 0;
  while (Clock::now() < end || steps < 3) {
    const auto t0 = Clock::now();
    step();
    line += std::to_string(std::chrono::duration<double, std::milli>(Clock::now() - t0).count()) +
            " ";
    ++steps;
  }
  std::printf("%s\n", line.c_str());
  return 0;
}

// Starts `n` worker processes stepping in one window; returns every step's
// milliseconds.
std::vector<double> RunWorkers(const Flags& f, const std::string& spec, const std::string& model,
                               int n) {
  // Starting a process and its session takes a while on a loaded machine;
  // the window opens once all of them can have warmed up.
  const auto start = std::chrono::system_clock::now() + std::chrono::seconds(2 + n);
  const std::string start_ns = std::to_string(
      std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count());
  const std::string self = BinaryDirectory() + "/bench_null_step";
  std::vector<std::pair<pid_t, int>> children;
  for (int w = 0; w < n; ++w) {
    int out[2];
    if (pipe(out) != 0) CheckOk(errors::Internal("pipe"), "start worker");
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      std::vector<std::string> args = {self,     "--role",  "worker", "--cluster", spec,
                                       "--model", model,     "--ps",   std::to_string(f.ps),
                                       "--seconds", std::to_string(f.seconds), "--start-ns",
                                       start_ns, "--dense-mb", std::to_string(f.dense_mb),
                                       "--embedding-mb", std::to_string(f.embedding_mb)};
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(self.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    children.emplace_back(pid, out[0]);
  }
  std::vector<double> ms;
  for (auto [pid, fd] : children) {
    std::string text;
    char buf[4096];
    for (ssize_t got; (got = read(fd, buf, sizeof buf)) > 0;) text.append(buf, got);
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      CheckOk(errors::Internal("a worker process failed: ", text), "worker");
    }
    std::stringstream in(text);
    for (double v; in >> v;) ms.push_back(v);
  }
  return ms;
}

void CheckModel(const std::string& model) {
  if (model != "scalar" && model != "dense" && model != "sparse") {
    CheckOk(errors::InvalidArgument("unknown model ", model), "flags");
  }
}

using RowFn =
    std::function<void(const std::string& model, int workers, const std::vector<double>& ms)>;

void PrintRow(const Flags& f, const std::string& mode, const std::string& model, int n,
              const std::vector<double>& ms) {
  std::ostringstream extra;
  // What CPU each task had: every process (real) or task (virtual) of
  // the cluster shares this machine's cores.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  extra << "\"mode\":\"" << mode << "\",\"ps\":" << f.ps << ",\"workers\":" << n
        << ",\"steps\":" << ms.size() << ",\"p10_ms\":" << Quantile(ms, 0.1)
        << ",\"p90_ms\":" << Quantile(ms, 0.9) << ",\"cores\":" << cores
        << ",\"cores_per_task\":" << static_cast<double>(cores) / (f.ps + n);
  PrintResult("null_step", model + "_" + std::to_string(n) + "_workers", extra.str(),
              "median_step", Quantile(ms, 0.5), "ms");
}

// Real processes: f.ps `actorflow server` tasks, one process per worker.
void RunReal(const Flags& f, const RowFn& row) {
  const std::vector<uint16_t> ports = PickFreePorts(f.ps);
  std::string spec = "ps=";
  for (int t = 0; t < f.ps; ++t) spec += (t ? "," : "") + std::string("127.0.0.1:") +
                                         std::to_string(ports[t]);
  std::vector<std::unique_ptr<BenchServer>> servers;
  for (int t = 0; t < f.ps; ++t) {
    servers.push_back(std::make_unique<BenchServer>());
    servers.back()->Start({"--cluster", spec, "--job", "ps", "--task", std::to_string(t),
                           });
  }
  for (const std::string& model : f.models) {
    CheckModel(model);
    {  // this process plays the chief: it initializes the variables once
      NullStepGraph graph(model, f);
      ClientSession chief(graph.root, ClusterOptions(spec));
      CheckOk(chief.Run({}, {}, graph.initializers, nullptr), "initialize " + model);
    }
    for (int n : f.workers) row(model, n, RunWorkers(f, spec, model, n));
  }
}

TransportModel BenchTransport(const Flags& f) {
  TransportModel model = TransportModel::Loopback();
  if (f.latency_us >= 0) model.latency_us = f.latency_us;
  if (f.bandwidth_gbs >= 0) model.bandwidth_bytes_per_s = f.bandwidth_gbs * 1e9;
  return model;
}

SessionOptions VirtualOptions(const ClusterSpec& spec) {
  SessionOptions options;
  options.cluster = spec;
  options.threads_per_device = 1;  // the client's own (unused) local device
  options.setup_timeout_ms = 60000;
  options.default_timeout_ms = 120000;
  return options;
}

// `n` virtual workers, each a thread with its own session (master in this
// process) computing on its own task; all measure in the same window.
std::vector<double> RunVirtualWorkers(const Flags& f, const VirtualCluster& cluster,
                                      const std::string& model, int n) {
  std::vector<std::vector<double>> per_worker(n);
  std::atomic<int> ready{0};
  std::atomic<int64_t> go_ns{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      NullStepGraph graph(model, f, VirtualCluster::DeviceName("worker", k));
      ClientSession session(graph.root, VirtualOptions(cluster.ClientSpec("worker", k)));
      CheckOk(session.status(), "virtual worker session");
      std::mt19937_64 rng(static_cast<uint64_t>(k) + 1);
      auto step = [&] {
        const ClientSession::FeedType feeds =
            model == "sparse" ? graph.SparseFeeds(&rng) : ClientSession::FeedType{};
        CheckOk(session.Run(feeds, {}, {graph.step}, nullptr), "virtual null step");
      };
      for (int i = 0; i < 3; ++i) step();  // plans registered, buffers warm
      ++ready;
      while (go_ns.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const auto start = Clock::time_point(std::chrono::nanoseconds(go_ns.load()));
      std::this_thread::sleep_until(start);
      const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(f.seconds));
      std::vector<double>& ms = per_worker[k];
      while (Clock::now() < end || ms.size() < 3) {
        const auto t0 = Clock::now();
        step();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
    });
  }
  while (ready.load() < n) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  go_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
              (Clock::now() + std::chrono::milliseconds(50)).time_since_epoch())
              .count();
  for (std::thread& t : threads) t.join();
  std::vector<double> all;
  for (const auto& ms : per_worker) all.insert(all.end(), ms.begin(), ms.end());
  return all;
}

// A virtual cluster of f.ps ps tasks and max(f.workers) worker tasks.
void RunVirtual(const Flags& f, const RowFn& row) {
  const int max_workers = *std::max_element(f.workers.begin(), f.workers.end());
  std::unique_ptr<VirtualCluster> cluster;
  CheckOk(VirtualCluster::Start(
              VirtualClusterOptions::PsWorkers(f.ps, max_workers, BenchTransport(f)), &cluster),
          "virtual cluster");
  for (const std::string& model : f.models) {
    CheckModel(model);
    {  // a chief initializes the variables once
      NullStepGraph graph(model, f, VirtualCluster::DeviceName("worker", 0));
      ClientSession chief(graph.root, VirtualOptions(cluster->ClientSpec("worker", 0)));
      CheckOk(chief.Run({}, {}, graph.initializers, nullptr), "initialize " + model);
    }
    for (int n : f.workers) row(model, n, RunVirtualWorkers(f, *cluster, model, n));
  }
}

// The model's check (issue 11 item 7): 2 ps + 3 workers, real processes
// and the virtual cluster, step-time medians and their ratio.
void RunValidation(Flags f) {
  f.ps = 2;
  f.workers = {3};
  std::map<std::string, std::vector<double>> real, virt;
  RunReal(f, [&](const std::string& model, int n, const std::vector<double>& ms) {
    PrintRow(f, "real", model, n, ms);
    real[model] = ms;
  });
  RunVirtual(f, [&](const std::string& model, int n, const std::vector<double>& ms) {
    PrintRow(f, "virtual", model, n, ms);
    virt[model] = ms;
  });
  const TransportModel transport = BenchTransport(f);
  for (const std::string& model : f.models) {
    const std::vector<double>& r = real[model];
    const std::vector<double>& v = virt[model];
    std::ostringstream extra;
    extra << "\"ps\":2,\"workers\":3,\"latency_us\":" << transport.latency_us
          << ",\"bandwidth_gbs\":" << transport.bandwidth_bytes_per_s / 1e9
          << ",\"real_median_ms\":" << Quantile(r, 0.5) << ",\"real_p10_ms\":"
          << Quantile(r, 0.1) << ",\"real_p90_ms\":" << Quantile(r, 0.9)
          << ",\"virtual_median_ms\":" << Quantile(v, 0.5) << ",\"virtual_p10_ms\":"
          << Quantile(v, 0.1) << ",\"virtual_p90_ms\":" << Quantile(v, 0.9)
          << ",\"peer\":\"real\",\"ratio\":" << Quantile(v, 0.5) / Quantile(r, 0.5);
    PrintResult("null_step_validation", model + "_2ps_3_workers", extra.str(),
                "virtual_over_real_median", Quantile(v, 0.5) / Quantile(r, 0.5), "x");
  }
}

int RunParent(const Flags& f) {
  auto print = [&](const std::string& mode) {
    return [&f, mode](const std::string& model, int n, const std::vector<double>& ms) {
      PrintRow(f, mode, model, n, ms);
    };
  };
  if (f.mode == "real") RunReal(f, print("real"));
  else if (f.mode == "virtual") RunVirtual(f, print("virtual"));
  else RunValidation(f);
  return 0;
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  const af::bench::Flags flags = af::bench::ParseFlags(argc, argv);
  return flags.role == "worker" ? af::bench::RunWorker(flags) : af::bench::RunParent(flags);
}
