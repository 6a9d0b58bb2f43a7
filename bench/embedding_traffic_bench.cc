// The bytes an embedding step moves to and from its ps tasks, and the
// memory each ps task needs, measured (issue 24): an embedding table of
// V rows × d floats partitioned over P `actorflow server` ps tasks (one
// shard each, filled there), a step that looks up k random distinct rows
// (EmbeddingLookup, "div"), a loss over them and a GradientDescent update.
//
//   traffic  the same graph twice on the same servers: the gradient as
//            IndexedSlices (only the k rows and their indices cross), and
//            converted to a dense tensor before the update (the whole
//            table's size crosses, the pre-sparse path). Figures are
//            RunMetadata::traffic of each step, averaged over --steps:
//            bytes to and from each ps task, their sum, the ideal sparse
//            figure k × (row + index) + k × index (the lookup's ids), and
//            the ratios.
//   memory   a --big-rows × d table (default 2M × 128 floats = 1 GiB) over
//            the same P tasks, trained for --steps sparse steps; each ps
//            task's peak resident memory (VmHWM) is printed beside its
//            shard's bytes, and this worker process's.
//
//   bench_embedding_traffic [--ps 4] [--rows 262144] [--dim 128] [--ids 1024]
//                           [--steps 5] [--big-rows 2097152] (0: no memory run)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "bench/bench_servers.h"
#include "bench/bench_util.h"
#include "client/client_session.h"
#include "client/embedding_ops.h"
#include "client/indexed_slices.h"
#include "client/optimizers/gradient_descent.h"
#include "client/partitioned_variable.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"
#include "core/step_traffic.h"

namespace af::bench {
namespace {

struct Flags {
  int ps = 4;
  int64_t rows = 262144;
  int64_t dim = 128;
  int64_t ids = 1024;
  int steps = 5;
  int64_t big_rows = 2097152;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--ps") f.ps = std::atoi(value);
    else if (key == "--rows") f.rows = std::atoll(value);
    else if (key == "--dim") f.dim = std::atoll(value);
    else if (key == "--ids") f.ids = std::atoll(value);
    else if (key == "--steps") f.steps = std::atoi(value);
    else if (key == "--big-rows") f.big_rows = std::atoll(value);
    else CheckOk(errors::InvalidArgument("unknown flag ", key), "flags");
  }
  if (argc % 2 == 0) CheckOk(errors::InvalidArgument("flag without a value"), "flags");
  if (f.ps < 1 || f.dim < 1 || f.ids < 1 || f.steps < 1 || f.ids > f.rows)
    CheckOk(errors::InvalidArgument("need --ps, --dim, --ids, --steps >= 1 and --ids <= --rows"),
            "flags");
  return f;
}

// The replica device setter a ps job's user writes: each shard (greedy
// by bytes, so shard i on ps task i) and what follows it on the ps tasks,
// the rest on this worker.
std::unique_ptr<ReplicaDeviceSetter> PsSetter(int ps_tasks) {
  ReplicaDeviceSetterOptions placement;
  placement.ps_tasks = ps_tasks;
  placement.ps_device = "/job:ps";
  placement.worker_device = "/job:localhost/replica:0/task:0";
  placement.strategy = PsStrategy::kGreedyByBytes;
  return std::make_unique<ReplicaDeviceSetter>(placement);
}

struct EmbeddingStep {
  EmbeddingStep(const std::string& table, int64_t rows, const Flags& f, bool dense_gradient)
      : root(Scope::NewRootScope()), setter(PsSetter(f.ps)) {
    const Scope scope = root.WithDeviceFunction(setter->function());
    PartitionedVariable params(scope.WithOpName(table), TensorShape{rows, f.dim}, DT_FLOAT,
                               FixedSizePartitioner(f.ps),
                               RandomUniformInitializer(-0.05, 0.05, /*seed=*/7));
    CheckOk(scope.status(), "table");
    initializers.push_back(GlobalVariablesInitializer(root));
    ids = ops::Placeholder(scope.WithOpName(table + "_ids"), DT_INT64);
    const Output rows_out = EmbeddingLookup(scope, params.shards(), ids, "div");
    const Output loss = ops::Sum(scope, ops::Square(scope, rows_out),
                                 ops::Const(scope, {0, 1}));
    GradientDescentOptimizer sgd(1e-3);
    std::vector<GradAndVar> grads;
    CheckOk(sgd.ComputeGradients(scope, loss, params.shards(), &grads), "gradients");
    if (dense_gradient) {
      for (GradAndVar& gv : grads) gv.first = ToDense(scope, gv.first);
    }
    CheckOk(sgd.ApplyGradients(scope, grads, Output(), &train), "updates");
    CheckOk(root.status(), "graph");
  }
  Scope root;
  std::unique_ptr<ReplicaDeviceSetter> setter;
  std::vector<Operation> initializers;
  Output ids;
  Operation train;
};

// k distinct row ids of [0, rows).
Tensor RandomIds(int64_t rows, int64_t k, std::mt19937_64* rng) {
  std::unordered_set<int64_t> picked;
  std::uniform_int_distribution<int64_t> pick(0, rows - 1);
  while (static_cast<int64_t>(picked.size()) < k) picked.insert(pick(*rng));
  Tensor ids(DT_INT64, TensorShape{k});
  std::copy(picked.begin(), picked.end(), ids.data<int64_t>());
  return ids;
}

struct MeanTraffic {
  std::vector<double> to, from;  // per ps task, bytes per step
  double total_to() const { return Sum(to); }
  double total_from() const { return Sum(from); }
  static double Sum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  }
};

// Initializes, runs one untimed step, then f.steps measured steps.
MeanTraffic Train(const EmbeddingStep& step, const SessionOptions& options, int64_t rows,
                  const Flags& f) {
  ClientSession session(step.root, options);
  CheckOk(session.Run({}, {}, step.initializers, nullptr), "initialize");
  std::mt19937_64 rng(11);
  MeanTraffic mean{std::vector<double>(f.ps, 0), std::vector<double>(f.ps, 0)};
  RunMetadata metadata;
  for (int s = 0; s <= f.steps; ++s) {
    CheckOk(session.Run(RunOptions{}, {{step.ids, RandomIds(rows, f.ids, &rng)}}, {}, {step.train},
                        nullptr, &metadata),
            "step");
    if (s == 0) continue;
    for (int t = 0; t < f.ps; ++t) {
      const std::string task = ClusterSpec::TaskName("ps", t);
      mean.to[t] += static_cast<double>(BytesTo(metadata.traffic, task)) / f.steps;
      mean.from[t] += static_cast<double>(BytesFrom(metadata.traffic, task)) / f.steps;
    }
  }
  return mean;
}

// A "VmHWM:  123456 kB" line of /proc/<pid>/status, in MiB (-1: unreadable).
double StatusMiB(const std::string& pid, const std::string& field) {
  std::ifstream status("/proc/" + pid + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field + ":", 0) == 0)
      return std::atof(line.c_str() + field.size() + 1) / 1024.0;
  }
  return -1;
}
double PeakResidentMiB(const std::string& pid) { return StatusMiB(pid, "VmHWM"); }

}  // namespace
}  // namespace af::bench

namespace af::bench {
namespace {

struct Servers {
  std::vector<std::unique_ptr<BenchServer>> tasks;
  SessionOptions options;
};

// f.ps fresh `actorflow server` ps tasks and the session options that
// name them.
std::unique_ptr<Servers> StartPs(const Flags& f) {
  auto servers = std::make_unique<Servers>();
  const std::vector<uint16_t> ports = PickFreePorts(f.ps);
  std::string spec = "ps=";
  for (int t = 0; t < f.ps; ++t)
    spec += (t ? "," : "") + std::string("127.0.0.1:") + std::to_string(ports[t]);
  for (int t = 0; t < f.ps; ++t) {
    servers->tasks.push_back(std::make_unique<BenchServer>());
    servers->tasks.back()->Start({"--cluster", spec, "--job", "ps", "--task", std::to_string(t)});
  }
  CheckOk(ClusterSpec::FromFlag(spec, &servers->options.cluster), "cluster spec");
  servers->options.default_timeout_ms = 300000;
  // Filling a 256 MiB shard keeps a 2-core machine busy for seconds.
  servers->options.worker_lost_after_ms = 15000;
  return servers;
}

void MeasureTraffic(const Flags& f) {
  std::unique_ptr<Servers> servers = StartPs(f);
  const double row_bytes = static_cast<double>(f.dim) * 4;
  const std::string extra = "\"ps\":" + std::to_string(f.ps) + ",\"rows\":" +
                            std::to_string(f.rows) + ",\"dim\":" + std::to_string(f.dim) +
                            ",\"ids\":" + std::to_string(f.ids);
  const MeanTraffic sparse =
      Train(EmbeddingStep("sparse_table", f.rows, f, false), servers->options, f.rows, f);
  const MeanTraffic dense =
      Train(EmbeddingStep("dense_table", f.rows, f, true), servers->options, f.rows, f);
  for (int t = 0; t < f.ps; ++t) {
    const std::string c = "ps_" + std::to_string(t);
    PrintResult("embedding_traffic", c, extra + ",\"gradient\":\"sparse\"", "bytes_to_ps",
                sparse.to[t], "bytes/step");
    PrintResult("embedding_traffic", c, extra + ",\"gradient\":\"sparse\"", "bytes_from_ps",
                sparse.from[t], "bytes/step");
    PrintResult("embedding_traffic", c, extra + ",\"gradient\":\"dense\"", "bytes_to_ps",
                dense.to[t], "bytes/step");
  }
  // The update's rows and indices, plus the lookup's ids.
  const double ideal_to = static_cast<double>(f.ids) * (row_bytes + 8) + f.ids * 8.0;
  PrintResult("embedding_traffic", "all_ps", extra + ",\"gradient\":\"sparse\"", "bytes_to_ps",
              sparse.total_to(), "bytes/step");
  PrintResult("embedding_traffic", "all_ps", extra + ",\"gradient\":\"sparse\"", "bytes_from_ps",
              sparse.total_from(), "bytes/step");
  PrintResult("embedding_traffic", "all_ps", extra, "ideal_sparse_bytes_to_ps", ideal_to,
              "bytes/step");
  PrintResult("embedding_traffic", "all_ps", extra, "sparse_over_ideal",
              sparse.total_to() / ideal_to, "x");
  PrintResult("embedding_traffic", "all_ps", extra + ",\"gradient\":\"dense\"", "bytes_to_ps",
              dense.total_to(), "bytes/step");
  PrintResult("embedding_traffic", "all_ps", extra, "table_bytes",
              static_cast<double>(f.rows) * row_bytes, "bytes");
  PrintResult("embedding_traffic", "all_ps", extra, "dense_over_sparse",
              dense.total_to() / sparse.total_to(), "x");
}

// On fresh servers, so each one's peak is this table's alone.
void MeasureMemory(const Flags& f) {
  std::unique_ptr<Servers> servers = StartPs(f);
  std::vector<double> idle(f.ps);
  for (int t = 0; t < f.ps; ++t)
    idle[t] = PeakResidentMiB(std::to_string(servers->tasks[t]->pid()));
  const double table_mib = static_cast<double>(f.big_rows) * f.dim * 4 / (1 << 20);
  Train(EmbeddingStep("big_table", f.big_rows, f, false), servers->options, f.big_rows, f);
  const std::string extra = "\"ps\":" + std::to_string(f.ps) + ",\"rows\":" +
                            std::to_string(f.big_rows) + ",\"dim\":" + std::to_string(f.dim) +
                            ",\"table_mib\":" + std::to_string(table_mib) +
                            ",\"shard_mib\":" + std::to_string(table_mib / f.ps);
  for (int t = 0; t < f.ps; ++t) {
    const std::string c = "ps_" + std::to_string(t);
    PrintResult("embedding_memory", c, extra, "peak_resident",
                PeakResidentMiB(std::to_string(servers->tasks[t]->pid())), "MiB");
    PrintResult("embedding_memory", c, extra, "idle_resident", idle[t], "MiB");
    // What stays after training: the peak also held the initializer's
    // temporaries (RandomUniform, then * and + into fresh shard-sized
    // tensors), freed once the shard was assigned.
    PrintResult("embedding_memory", c, extra, "resident_after_training",
                StatusMiB(std::to_string(servers->tasks[t]->pid()), "VmRSS"), "MiB");
  }
  PrintResult("embedding_memory", "worker", extra, "peak_resident", PeakResidentMiB("self"),
              "MiB");
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  const af::bench::Flags f = af::bench::ParseFlags(argc, argv);
  if (f.big_rows > 0) af::bench::MeasureMemory(f);
  af::bench::MeasureTraffic(f);
  return 0;
}
