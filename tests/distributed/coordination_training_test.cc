// Coordination protocols across processes: three worker replicas (threads
// of this process, each with its own graph and session, as separate worker
// programs would have) fit y = 3x - 1 with w and b on two `actorflow
// server` ps tasks (127.0.0.1). The accumulators sit beside w and b on the
// ps tasks, the token queue and the staleness clock beside the global step;
// every protocol must reach the line, and sync/backup must have averaged
// exactly m gradients of each variable per step.
#include <cmath>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/coordination/protocol_factory.h"
#include "client/optimizers/gradient_descent.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::PsPair;

constexpr int kWorkers = 3;
constexpr int64_t kTimeoutMs = 30000;

// One worker program: its model on the ps tasks through a replica device
// setter, its own data (8 points of the line, shifted per worker), and the
// protocol's train op.
struct Replica {
  Replica(const std::string& spec, int index, const SessionOptions& options)
      : root(Scope::NewRootScope()), sgd(0.2) {
    ReplicaDeviceSetterOptions placement;
    placement.worker_device = "/job:localhost/replica:0/task:0";
    placement.strategy = PsStrategy::kGreedyByBytes;
    status = ReplicaDeviceSetter::FromCluster(options.cluster, placement, &setter);
    if (!status.ok()) return;
    Scope model = root.WithDeviceFunction(setter->function());
    Variable vw(model.WithOpName("w"), Input::Initializer({0.0f}, TensorShape{1, 1}));
    Variable vb(model.WithOpName("b"), Input::Initializer({0.0f}, TensorShape{1}));
    w = vw.var;
    b = vb.var;
    x = ops::Placeholder(model.WithOpName("x"), DT_FLOAT);
    y = ops::Placeholder(model.WithOpName("y"), DT_FLOAT);
    auto predicted = ops::Add(model, ops::MatMul(model, x, w), b);
    loss = ops::Mean(model, ops::Square(model, ops::Sub(model, predicted, y)), {0, 1});
    xs = Tensor(DT_FLOAT, TensorShape{8, 1});
    ys = Tensor(DT_FLOAT, TensorShape{8, 1});
    for (int i = 0; i < 8; ++i) {
      xs.data<float>()[i] = static_cast<float>(i) / 4 - 1 + 0.1f * static_cast<float>(index);
      ys.data<float>()[i] = 3 * xs.data<float>()[i] - 1;
    }
    ProtocolOptions protocol_options;
    protocol_options.token_timeout_ms = kTimeoutMs;
    protocol_options.aggregation_timeout_ms = kTimeoutMs;
    protocol_options.tick_timeout_ms = kTimeoutMs;
    status = CreateCoordinationProtocol(spec, protocol_options, &protocol);
    if (!status.ok()) return;
    std::vector<GradAndVar> grads_and_vars;
    status = sgd.ComputeGradients(model, loss, {}, &grads_and_vars);
    if (!status.ok()) return;
    ReplicaContext replica;
    replica.worker_index = index;
    replica.num_workers = kWorkers;
    replica.is_chief = index == 0;
    replica.optimizer = &sgd;
    replica.global_step = GetOrCreateGlobalStep(model);
    replica.ps_devices = {"/job:ps/task:0", "/job:ps/task:1"};
    replica.shared_name = "fit_" + spec;
    replica.session_options = options;
    status = protocol->Build(model, grads_and_vars, replica);
    session = std::make_unique<ClientSession>(root, options);
  }

  Status Step(std::vector<Tensor>* out) const {
    RunOptions run;
    run.timeout_ms = kTimeoutMs;
    return protocol->RunStep(*session, {{x, xs}, {y, ys}}, {loss}, out, run);
  }

  Scope root;
  GradientDescentOptimizer sgd;
  std::unique_ptr<ReplicaDeviceSetter> setter;
  Output w, b, x, y, loss;
  Tensor xs, ys;
  std::unique_ptr<CoordinationProtocol> protocol;
  std::unique_ptr<ClientSession> session;
  Status status;
};

struct Trained {
  std::vector<CoordinationStats> stats;
  float w = 0, b = 0, first_loss = 0, last_loss = 0;
};

// Starts two ps tasks, trains with `spec`: every worker steps until it sees
// global step `until_step`, or (ssp) runs `steps_each` steps.
Trained Train(const std::string& spec, int64_t until_step, int64_t steps_each = 0) {
  Trained result;
  PsPair ps;
  BOOST_TEST_REQUIRE(ps.Start().ok());
  const std::string& cluster = ps.spec;
  SessionOptions options;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(cluster, &options.cluster).ok());
  options.default_timeout_ms = kTimeoutMs;

  std::vector<std::unique_ptr<Replica>> replicas;
  for (int i = 0; i < kWorkers; ++i) {
    replicas.push_back(std::make_unique<Replica>(spec, i, options));
    BOOST_TEST_REQUIRE(replicas[i]->status.ok(), replicas[i]->status);
    BOOST_TEST_REQUIRE(replicas[i]->session->status().ok(), replicas[i]->session->status());
  }
  // The chief initializes the ps variables; then every worker starts.
  Status s = replicas[0]->session->Run({}, {}, {GlobalVariablesInitializer(replicas[0]->root)},
                                       nullptr);
  if (!s.ok()) {  // what the ps tasks said (their stall inspectors, errors)
    ps.ps0.WaitForOutput("\x01", std::chrono::milliseconds(300));
    ps.ps1.WaitForOutput("\x01", std::chrono::milliseconds(300));
  }
  BOOST_TEST_REQUIRE(s.ok(), s << "\nps 0:\n" << ps.ps0.output() << "\nps 1:\n" << ps.ps1.output());
  for (auto& r : replicas) {
    s = r->protocol->Start(*r->session);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  std::vector<std::future<Status>> running;
  std::vector<float> first(kWorkers, 0), last(kWorkers, 0);
  for (int i = 0; i < kWorkers; ++i) {
    running.push_back(std::async(std::launch::async, [&, i]() -> Status {
      const Replica& r = *replicas[i];
      for (int64_t step = 0;; ++step) {
        if (steps_each > 0 ? step >= steps_each
                           : r.protocol->stats().global_step >= until_step)
          return Status::OK();
        std::vector<Tensor> out;
        AF_RETURN_IF_ERROR(r.Step(&out));
        (step == 0 ? first[i] : last[i]) = out[0].scalar<float>();
      }
    }));
  }
  for (auto& f : running) {
    s = f.get();
    BOOST_TEST(s.ok(), s);
  }
  BOOST_TEST(replicas[0]->protocol->Stop().ok());
  for (auto& r : replicas) result.stats.push_back(r->protocol->stats());
  std::vector<Tensor> out;
  s = replicas[0]->session->Run({replicas[0]->w, replicas[0]->b}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  result.w = out[0].data<float>()[0];
  result.b = out[1].data<float>()[0];
  result.first_loss = first[0];
  result.last_loss = last[0];
  BOOST_TEST_MESSAGE(spec << ": w " << result.w << ", b " << result.b << ", chief's loss "
                          << first[0] << " -> " << last[0]);
  for (int i = 0; i < kWorkers; ++i)
    BOOST_TEST_MESSAGE("  worker " << i << ": " << result.stats[i].ToString());
  return result;
}

void CheckFit(const Trained& t) {
  BOOST_TEST(std::abs(t.w - 3.0f) < 0.02f, "w " << t.w);
  BOOST_TEST(std::abs(t.b + 1.0f) < 0.02f, "b " << t.b);
  BOOST_TEST(t.last_loss < t.first_loss / 1000, "loss " << t.first_loss << " -> " << t.last_loss);
}

// Exactly m gradients of each of the two variables per step went into the
// chief's averages; every other one was dropped and counted.
void CheckAggregation(const Trained& t, int64_t steps, int64_t m) {
  int64_t applied = 0, dropped = 0, computed = 0;
  for (const CoordinationStats& s : t.stats) {
    BOOST_TEST(s.global_step == steps);
    applied += s.gradients_applied;
    dropped += s.gradients_dropped;
    computed += 2 * s.steps;
  }
  BOOST_TEST(applied == 2 * m * steps);
  BOOST_TEST(dropped == computed - applied);
  BOOST_TEST(t.stats[0].updates == steps);
}

BOOST_AUTO_TEST_CASE(sync_replicas_on_two_ps_tasks_reach_the_line) {
  constexpr int64_t kSteps = 80;
  const Trained t = Train("sync", kSteps);
  CheckFit(t);
  CheckAggregation(t, kSteps, kWorkers);
  for (const CoordinationStats& s : t.stats) BOOST_TEST(s.gradients_dropped == 0);
}

BOOST_AUTO_TEST_CASE(backup_workers_on_two_ps_tasks_reach_the_line) {
  constexpr int64_t kSteps = 80;
  const Trained t = Train("backup:1", kSteps);
  CheckFit(t);
  CheckAggregation(t, kSteps, kWorkers - 1);
}

BOOST_AUTO_TEST_CASE(async_and_ssp_on_two_ps_tasks_reach_the_line) {
  const Trained async = Train("async", 3 * 80);
  CheckFit(async);
  const Trained ssp = Train("ssp:1", 0, /*steps_each=*/80);
  CheckFit(ssp);
  for (const CoordinationStats& s : ssp.stats) {
    BOOST_TEST(s.steps == 80);
    BOOST_TEST(s.gradients_dropped == 0);
  }
}

}  // namespace
}  // namespace af
