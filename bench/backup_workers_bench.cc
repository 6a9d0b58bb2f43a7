// OSDI 2016 Fig. 8(c) on one machine: how backup workers (and, beyond the
// paper, stale-synchronous parallel) cut the step time of synchronous
// training when some workers straggle. n workers train a small model whose
// variables live on ps tasks; every worker task delays each of its steps by
// a heavy-tailed draw (fault injection, `compute=pareto:...`), so in each
// step some worker is slow. With b backup workers (n + b tasks, protocol
// `backup:b`; b = 0 is `sync`) each step waits for the first n gradients
// only. Printed per b: the step time (median, p10, p90 of every worker's
// steps), the mean time per global step t(b) (the window's wall time over
// its global steps), and the normalized speedup t(0)/t(b) · n/(n+b) — the
// paper's measure of whether the extra workers pay for themselves. Then `ssp:s`
// for s = 0, 1, 2, 4 with the n workers alone, under the same stragglers:
// the time per round (every worker one step), wall time / steps per
// worker, and its speedup over sync's t(0).
//
//   bench_backup_workers [--mode real|virtual] [--workers N] [--backups 0,1,2,3,4]
//                        [--ssp 0,1,2,4] [--steps 40] [--ps 2]
//                        [--straggler pareto:10ms:1.5] [--cap 1s]
//
// real (default): ps and worker tasks are `actorflow server` processes (8
// workers, b = 0..4); virtual: tasks of a virtual cluster in this process
// (actors/virtual_cluster.h; 50 workers, b = 0..5, the paper's scale). In
// both, each worker's client is a thread of this process with its own
// session, computing on its own task.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/virtual_cluster.h"
#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/coordination/protocol_factory.h"
#include "client/optimizers/gradient_descent.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"

namespace af::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  std::string mode = "real";
  int workers = 0;  // 0: the mode's default
  std::vector<int> backups;
  std::vector<int> ssp = {0, 1, 2, 4};
  int steps = 40;  // global steps measured (sync/backup), steps per worker (ssp)
  int ps = 2;
  std::string straggler = "pareto:10ms:1.5";
  std::string cap = "1s";
};

std::vector<int> IntList(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], v = argv[i + 1];
    if (flag == "--mode") f.mode = v;
    else if (flag == "--workers") f.workers = std::atoi(v.c_str());
    else if (flag == "--backups") f.backups = IntList(v);
    else if (flag == "--ssp") f.ssp = IntList(v);
    else if (flag == "--steps") f.steps = std::atoi(v.c_str());
    else if (flag == "--ps") f.ps = std::atoi(v.c_str());
    else if (flag == "--straggler") f.straggler = v;
    else if (flag == "--cap") f.cap = v;
    else CheckOk(errors::InvalidArgument("unknown flag ", flag), "flags");
  }
  if (f.mode != "real" && f.mode != "virtual")
    CheckOk(errors::InvalidArgument("--mode must be real or virtual"), "flags");
  if (f.workers == 0) f.workers = f.mode == "real" ? 8 : 50;
  if (f.backups.empty()) f.backups = f.mode == "real" ? std::vector<int>{0, 1, 2, 3, 4}
                                                       : std::vector<int>{0, 1, 2, 3, 4, 5};
  if (f.workers < 1 || f.steps < 5 || f.ps < 1)
    CheckOk(errors::InvalidArgument("--workers, --steps (>= 5) and --ps must be positive"),
            "flags");
  return f;
}

// Where the tasks run and how a worker's client reaches them.
class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual SessionOptions ClientOptions(int worker) const = 0;
  virtual const ClusterSpec& spec() const = 0;
};

SessionOptions BaseOptions() {
  SessionOptions options;
  options.threads_per_device = 1;
  options.setup_timeout_ms = 60000;
  options.default_timeout_ms = 120000;
  return options;
}

class RealCluster : public Cluster {
 public:
  RealCluster(int ps, int workers, const std::string& faults) {
    const std::vector<uint16_t> ports = PickFreePorts(ps + workers);
    std::string flag = "ps=";
    for (int t = 0; t < ps + workers; ++t) {
      if (t == ps) flag += ";worker=";
      else if (t > 0) flag += ",";
      flag += "127.0.0.1:" + std::to_string(ports[t]);
    }
    CheckOk(ClusterSpec::FromFlag(flag, &spec_), "cluster spec");
    for (int t = 0; t < ps + workers; ++t) {
      servers_.push_back(std::make_unique<BenchServer>());
      const bool is_ps = t < ps;
      servers_.back()->Start({"--cluster", flag, "--job", is_ps ? "ps" : "worker", "--task",
                              std::to_string(is_ps ? t : t - ps), "--faults", faults});
    }
  }
  SessionOptions ClientOptions(int) const override {
    SessionOptions options = BaseOptions();
    options.cluster = spec_;
    return options;
  }
  const ClusterSpec& spec() const override { return spec_; }

 private:
  ClusterSpec spec_;
  std::vector<std::unique_ptr<BenchServer>> servers_;
};

class SimulatedCluster : public Cluster {
 public:
  SimulatedCluster(int ps, int workers, const std::string& faults) {
    VirtualClusterOptions options = VirtualClusterOptions::PsWorkers(ps, workers);
    options.faults = faults;
    CheckOk(VirtualCluster::Start(options, &cluster_), "virtual cluster");
  }
  SessionOptions ClientOptions(int worker) const override {
    SessionOptions options = BaseOptions();
    options.cluster = cluster_->ClientSpec("worker", worker);
    return options;
  }
  const ClusterSpec& spec() const override { return cluster_->spec(); }

 private:
  std::unique_ptr<VirtualCluster> cluster_;
};

// One worker's program: w (on the ps tasks) fitted to a fixed linear map,
// the gradient computed on the worker's own task (where its straggler
// delay acts), combined by the protocol.
struct Replica {
  Replica(const Cluster& cluster, const std::string& run, const std::string& protocol_spec,
          int index, int num_workers)
      : root(Scope::NewRootScope()), sgd(0.05) {
    ReplicaDeviceSetterOptions placement;
    placement.worker_device = "/job:worker/replica:0/task:" + std::to_string(index);
    CheckOk(ReplicaDeviceSetter::FromCluster(cluster.spec(), placement, &setter), "setter");
    const Scope model = root.WithDeviceFunction(setter->function()).NewSubScope(run);
    Tensor start(DT_FLOAT, TensorShape{32, 8});
    for (int64_t i = 0; i < start.NumElements(); ++i) start.data<float>()[i] = 0;
    Variable w(model.WithOpName("w"), Input::Initializer(start));
    Tensor xs(DT_FLOAT, TensorShape{16, 32}), ys(DT_FLOAT, TensorShape{16, 8});
    for (int64_t i = 0; i < xs.NumElements(); ++i)
      xs.data<float>()[i] = static_cast<float>((i * 7 + index) % 13) / 13 - 0.5f;
    for (int64_t i = 0; i < ys.NumElements(); ++i) ys.data<float>()[i] = static_cast<float>(i % 5) / 5;
    auto predicted = ops::MatMul(model, ops::Const(model, Input::Initializer(xs)), w.var);
    auto loss = ops::Mean(model, ops::Square(model, ops::Sub(model, predicted,
                                                              ops::Const(model, Input::Initializer(ys)))),
                          {0, 1});
    ProtocolOptions protocol_options;
    protocol_options.token_timeout_ms = 60000;
    protocol_options.aggregation_timeout_ms = 30000;
    protocol_options.tick_timeout_ms = 60000;
    CheckOk(CreateCoordinationProtocol(protocol_spec, protocol_options, &protocol), "protocol");
    std::vector<GradAndVar> grads_and_vars;
    CheckOk(sgd.ComputeGradients(model, loss, {}, &grads_and_vars), "gradients");
    ReplicaContext replica;
    replica.worker_index = index;
    replica.num_workers = num_workers;
    replica.is_chief = index == 0;
    replica.optimizer = &sgd;
    replica.global_step = GetOrCreateGlobalStep(model);
    for (int t : cluster.spec().task_indices("ps"))
      replica.ps_devices.push_back(ClusterSpec::TaskName("ps", t));
    replica.shared_name = run;
    replica.session_options = cluster.ClientOptions(index);
    CheckOk(protocol->Build(model, grads_and_vars, replica), "protocol build");
    session = std::make_unique<ClientSession>(root, cluster.ClientOptions(index));
    CheckOk(session->status(), "session");
  }

  Scope root;
  GradientDescentOptimizer sgd;
  std::unique_ptr<ReplicaDeviceSetter> setter;
  std::unique_ptr<CoordinationProtocol> protocol;
  std::unique_ptr<ClientSession> session;
};

struct RunResult {
  std::vector<double> step_ms;  // every worker's measured steps
  double seconds = 0;           // the measured window
  int64_t global_steps = 0;     // in the window (sync/backup)
  int64_t min_worker_steps = 0; // in the window (ssp)
  int64_t dropped = 0;
};

// Trains `num_workers` replicas with `protocol_spec`. sync/backup: until
// the chief sees `warmup + steps` global steps, measuring after `warmup`;
// ssp: each worker `warmup + steps` steps.
RunResult Train(const Cluster& cluster, const std::string& run, const std::string& protocol_spec,
                int num_workers, int steps) {
  constexpr int kWarmup = 5;
  const bool per_worker = protocol_spec.rfind("ssp", 0) == 0;
  std::vector<std::unique_ptr<Replica>> replicas(num_workers);
  {
    std::vector<std::thread> building;
    for (int i = 0; i < num_workers; ++i)
      building.emplace_back([&, i] {
        replicas[i] = std::make_unique<Replica>(cluster, run, protocol_spec, i, num_workers);
      });
    for (auto& t : building) t.join();
  }
  CheckOk(replicas[0]->session->Run({}, {}, {GlobalVariablesInitializer(replicas[0]->root)},
                                    nullptr),
          "initialize");
  for (auto& r : replicas) CheckOk(r->protocol->Start(*r->session), "protocol start");

  // sync/backup: every worker stops once its step brought back the last
  // global step; the last update hands a token to each waiting worker, so
  // none is left waiting for one.
  const int64_t last_step = kWarmup + steps;
  std::atomic<int64_t> window_start_step{-1};
  Clock::time_point window_start{}, window_end{};
  std::vector<std::vector<double>> ms(num_workers);
  std::vector<int64_t> measured_steps(num_workers, 0);
  std::vector<std::thread> threads;
  std::atomic<int> started_window{0};
  for (int i = 0; i < num_workers; ++i) {
    threads.emplace_back([&, i] {
      Replica& r = *replicas[i];
      for (int64_t step = 0;; ++step) {
        if (per_worker ? step >= last_step : r.protocol->stats().global_step >= last_step) return;
        const auto t0 = Clock::now();
        std::vector<Tensor> out;
        CheckOk(r.protocol->RunStep(*r.session, {}, {}, &out), "step of worker " + std::to_string(i));
        const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        const int64_t global = r.protocol->stats().global_step;
        if (per_worker) {
          if (step == kWarmup - 1 && started_window.fetch_add(1) == 0) window_start = Clock::now();
          if (step >= kWarmup) {
            ms[i].push_back(elapsed);
            ++measured_steps[i];
          }
          continue;
        }
        if (i == 0 && window_start_step.load() < 0 && global >= kWarmup) {
          window_start = Clock::now();
          window_start_step = global;
        }
        const int64_t from = window_start_step.load();
        if (from >= 0 && global > from) ms[i].push_back(elapsed);
        if (i == 0 && global >= last_step) window_end = Clock::now();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (per_worker) window_end = Clock::now();
  RunResult result;
  result.seconds = std::chrono::duration<double>(window_end - window_start).count();
  result.global_steps = per_worker ? steps : last_step - window_start_step.load();
  result.min_worker_steps = *std::min_element(measured_steps.begin(), measured_steps.end());
  for (int i = 0; i < num_workers; ++i) {
    result.step_ms.insert(result.step_ms.end(), ms[i].begin(), ms[i].end());
    result.dropped += replicas[i]->protocol->stats().gradients_dropped;
  }
  for (auto& r : replicas) (void)r->protocol->Stop();
  return result;
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  using namespace af::bench;
  const Flags f = ParseFlags(argc, argv);
  const int max_backups = *std::max_element(f.backups.begin(), f.backups.end());
  const std::string faults =
      "task=/job:worker;compute=" + f.straggler + ";cap=" + f.cap + ";seed=11";
  std::unique_ptr<Cluster> cluster;
  if (f.mode == "real") cluster = std::make_unique<RealCluster>(f.ps, f.workers + max_backups, faults);
  else cluster = std::make_unique<SimulatedCluster>(f.ps, f.workers + max_backups, faults);

  const std::string common = "\"mode\":\"" + f.mode + "\",\"ps\":" + std::to_string(f.ps) +
                             ",\"straggler\":\"" + f.straggler + "\"";
  double t0 = 0;
  for (int b : f.backups) {
    const std::string spec = b == 0 ? "sync" : "backup:" + std::to_string(b);
    const RunResult r = Train(*cluster, "b" + std::to_string(b), spec, f.workers + b, f.steps);
    const double median = Quantile(r.step_ms, 0.5);
    // Throughput, as the paper's speedup: wall time per global step.
    const double step_ms = r.seconds * 1000 / r.global_steps;
    if (b == 0) t0 = step_ms;
    const double speedup = t0 > 0 ? t0 / step_ms * f.workers / (f.workers + b) : 0;
    std::ostringstream extra;
    extra << common << ",\"protocol\":\"" << spec << "\",\"workers\":" << f.workers
          << ",\"backups\":" << b << ",\"p10_ms\":" << Quantile(r.step_ms, 0.1)
          << ",\"p90_ms\":" << Quantile(r.step_ms, 0.9)
          << ",\"mean_global_step_ms\":" << step_ms
          << ",\"gradients_dropped\":" << r.dropped << ",\"normalized_speedup\":" << speedup;
    PrintResult("backup_workers", spec + "_" + std::to_string(f.workers) + "_workers", extra.str(),
                "median_step", median, "ms");
  }
  for (int s : f.ssp) {
    const std::string spec = "ssp:" + std::to_string(s);
    const RunResult r = Train(*cluster, "ssp" + std::to_string(s), spec, f.workers, f.steps);
    std::ostringstream extra;
    extra << common << ",\"protocol\":\"" << spec << "\",\"workers\":" << f.workers
          << ",\"median_step_ms\":" << Quantile(r.step_ms, 0.5)
          << ",\"p10_ms\":" << Quantile(r.step_ms, 0.1) << ",\"p90_ms\":" << Quantile(r.step_ms, 0.9)
          << ",\"speedup_over_sync\":" << (t0 > 0 ? t0 / (r.seconds * 1000 / f.steps) : 0);
    PrintResult("backup_workers", spec + "_" + std::to_string(f.workers) + "_workers", extra.str(),
                "time_per_round", r.seconds * 1000 / f.steps, "ms");
  }
  return 0;
}
