// What a step moves between processes (RunMetadata::traffic): an embedding
// step with its table on two ps tasks ships the rows it touches, not the
// table; the same step with its gradient made dense ships the table's size;
// a traced step's Chrome trace draws the figures.
#include <algorithm>
#include <numeric>

#include <boost/test/unit_test.hpp>

#include "client/chrome_trace.h"
#include "client/client_session.h"
#include "client/embedding_ops.h"
#include "client/indexed_slices.h"
#include "client/optimizers/gradient_descent.h"
#include "client/partitioned_variable.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/step_traffic.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::PsPair;

constexpr int64_t kRows = 4096, kDim = 16;
const char* kPs0 = "/job:ps/replica:0/task:0";
const char* kPs1 = "/job:ps/replica:0/task:1";
const std::string kWorker = "/job:localhost/replica:0/task:0";

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
  EmbeddingStep(const std::string& table, bool dense_gradient)
      : root(Scope::NewRootScope()), setter(PsSetter(2)) {
    const Scope scope = root.WithDeviceFunction(setter->function());
    PartitionedVariable params(scope.WithOpName(table), TensorShape{kRows, kDim}, DT_FLOAT,
                               FixedSizePartitioner(2), ConstantInitializer(0.5));
    initializers.push_back(GlobalVariablesInitializer(root));
    ids = ops::Placeholder(scope.WithOpName(table + "_ids"), DT_INT64);
    const Output rows = EmbeddingLookup(scope, params.shards(), ids, "div");
    const Output loss = ops::Sum(scope, ops::Square(scope, rows), ops::Const(scope, {0, 1}));
    GradientDescentOptimizer sgd(0.1);
    std::vector<GradAndVar> grads;
    Status s = sgd.ComputeGradients(scope, loss, params.shards(), &grads);
    for (GradAndVar& gv : grads) {
      BOOST_TEST(gv.first.is_sparse());
      if (dense_gradient) gv.first = ToDense(scope, gv.first);
    }
    if (s.ok()) s = sgd.ApplyGradients(scope, grads, Output(), &train);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST_REQUIRE(root.status().ok(), root.status());
  }
  Scope root;
  std::unique_ptr<ReplicaDeviceSetter> setter;
  std::vector<Operation> initializers;
  Output ids;
  Operation train;
};

// Ids 0..k/2-1 (shard 0, "div": the first 2048 rows) and 2048.. (shard 1).
Tensor Ids(int64_t k) {
  Tensor ids(DT_INT64, TensorShape{k});
  for (int64_t i = 0; i < k; ++i) ids.data<int64_t>()[i] = i < k / 2 ? i * 3 : kRows / 2 + i;
  return ids;
}

SessionOptions PsOptions(const PsPair& ps) {
  SessionOptions options;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(ps.spec, &options.cluster).ok());
  options.default_timeout_ms = 30000;
  return options;
}

RunMetadata OneStep(const EmbeddingStep& step, const SessionOptions& options, int64_t k,
                    RunOptions::TraceLevel trace = RunOptions::NO_TRACE) {
  ClientSession session(step.root, options);
  RunMetadata init;
  Status s = session.Run(RunOptions{}, {}, {}, step.initializers, nullptr, &init);
  BOOST_TEST_REQUIRE(s.ok(), s);
  // Each shard's initial value is made on its own ps task (colocated, as
  // TensorFlow does), so initializing moves no table.
  for (const char* task : {kPs0, kPs1}) {
    BOOST_TEST(BytesTo(init.traffic, task) < 1024u, TrafficDebugString(init.traffic));
  }
  RunOptions run_options;
  run_options.trace_level = trace;
  RunMetadata metadata;
  s = session.Run(run_options, {{step.ids, Ids(k)}}, {}, {step.train}, nullptr, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_MESSAGE(TrafficDebugString(metadata.traffic));
  return metadata;
}

BOOST_AUTO_TEST_CASE(a_sparse_embedding_step_moves_rows_not_the_table) {
  PsPair ps;
  BOOST_TEST_REQUIRE(ps.Start().ok());
  const int64_t k = 64;  // 32 rows of each shard
  const uint64_t row = kDim * 4;
  const RunMetadata sparse = OneStep(EmbeddingStep("traffic_sparse", false), PsOptions(ps), k);
  for (const char* task : {kPs0, kPs1}) {
    // The looked-up rows come back; nothing else of size.
    const uint64_t from = BytesFrom(sparse.traffic, task);
    BOOST_TEST(from >= k / 2 * row, task << " sent " << from);
    BOOST_TEST(from <= k / 2 * row + 256, task << " sent " << from);
    // The ids to look up, then the gradient's rows and their indices.
    const uint64_t to = BytesTo(sparse.traffic, task);
    BOOST_TEST(to >= k / 2 * (row + 8), task << " received " << to);
    BOOST_TEST(to <= 1.2 * (k / 2 * (row + 16)), task << " received " << to);
  }
  // Every entry is between this process and a ps task.
  for (const TaskTraffic& entry : sparse.traffic) {
    BOOST_TEST((entry.src == kWorker) != (entry.dst == kWorker), entry.src << " -> " << entry.dst);
    BOOST_TEST(entry.tensors > 0u);
  }

  const RunMetadata dense = OneStep(EmbeddingStep("traffic_dense", true), PsOptions(ps), k);
  for (const char* task : {kPs0, kPs1}) {
    // The whole shard's gradient crosses.
    BOOST_TEST(BytesTo(dense.traffic, task) >= kRows / 2 * row);
    BOOST_TEST(BytesTo(dense.traffic, task) > 10 * BytesTo(sparse.traffic, task));
  }
}

BOOST_AUTO_TEST_CASE(a_traced_step_draws_its_traffic_in_the_chrome_trace) {
  PsPair ps;
  BOOST_TEST_REQUIRE(ps.Start().ok());
  const RunMetadata traced = OneStep(EmbeddingStep("traffic_traced", false), PsOptions(ps), 8,
                                     RunOptions::FULL_TRACE);
  BOOST_TEST(traced.step_stats.dev_stats_size() >= 3);
  BOOST_TEST_REQUIRE(!traced.traffic.empty());
  const std::string json = StepStatsToChromeTrace(traced.step_stats, traced.traffic);
  BOOST_TEST(json.find("\"traffic between tasks\"") != std::string::npos);
  BOOST_TEST(json.find(std::string("\"bytes into ") + kPs0 + "\"") != std::string::npos);
  BOOST_TEST(json.find(std::string("\"bytes into ") + kWorker + "\"") != std::string::npos);
  const std::string from_ps0 = "\"src\":\"" + std::string(kPs0) + "\",\"dst\":\"" + kWorker +
                               "\",\"bytes\":" + std::to_string(BytesFrom(traced.traffic, kPs0));
  BOOST_TEST(json.find(from_ps0) != std::string::npos, json);
}

BOOST_AUTO_TEST_CASE(a_step_in_one_process_reports_no_traffic) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Mul(root, x, x);
  ClientSession session(root);
  RunMetadata metadata;
  metadata.traffic.push_back({"stale", "entry", 1, 1});
  std::vector<Tensor> out;
  Status s = session.Run(RunOptions{}, {{x, Tensor::Scalar<float>(3)}}, {y}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(metadata.traffic.empty());
}

}  // namespace
}  // namespace af
