// Virtual clusters (actors/virtual_cluster.h): ps and worker tasks as actors
// of this process, reached through the modelled in-process transport by
// the ordinary session and master code. Timing checks are lower bounds only.
#include <atomic>
#include <chrono>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "actors/virtual_cluster.h"
#include "client/client_session.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"

namespace af {
namespace {

using Clock = std::chrono::steady_clock;

SessionOptions ClientOptions(const ClusterSpec& spec) {
  SessionOptions options;
  options.cluster = spec;
  options.threads_per_device = 1;
  options.default_timeout_ms = 60000;
  return options;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

float Scalar(const Tensor& t) { return t.data<float>()[0]; }

BOOST_AUTO_TEST_SUITE(virtual_cluster)

BOOST_AUTO_TEST_CASE(spec_addresses_and_client_specs) {
  std::unique_ptr<VirtualCluster> cluster;
  BOOST_TEST_REQUIRE(VirtualCluster::Start(VirtualClusterOptions::PsWorkers(2, 3), &cluster).ok());
  const ClusterSpec& spec = cluster->spec();
  BOOST_TEST(spec.num_tasks("ps") == 2);
  BOOST_TEST(spec.num_tasks("worker") == 3);
  std::string address;
  BOOST_TEST_REQUIRE(spec.Address("worker", 2, &address).ok());
  BOOST_TEST(address == "virtual:" + cluster->name() + "/worker/2");
  // A spec with virtual addresses survives the --cluster round trip.
  ClusterSpec again;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(spec.ToFlag(), &again).ok());
  BOOST_TEST(again.ToFlag() == spec.ToFlag());
  // Worker 1's client: every ps task and its own task, keeping its index.
  const ClusterSpec client = cluster->ClientSpec("worker", 1);
  BOOST_TEST(client.num_tasks("ps") == 2);
  BOOST_TEST(client.task_indices("worker") == std::vector<int>{1}, boost::test_tools::per_element());
  // A second cluster under a taken name is refused; bad options too.
  VirtualClusterOptions same = VirtualClusterOptions::PsWorkers(1, 1);
  same.name = cluster->name();
  std::unique_ptr<VirtualCluster> other;
  BOOST_TEST(errors::IsAlreadyExists(VirtualCluster::Start(same, &other)));
  VirtualClusterOptions bad = VirtualClusterOptions::PsWorkers(1, 1);
  bad.transport.stragglers["/job:worker/replica:0/task:7"] = StragglerModel{};
  BOOST_TEST(errors::IsInvalidArgument(VirtualCluster::Start(bad, &other)));
}

BOOST_AUTO_TEST_CASE(a_missing_virtual_cluster_is_unavailable_naming_it) {
  ClusterSpec spec;
  BOOST_TEST_REQUIRE(ClusterSpec::FromFlag("ps=virtual:nosuchcluster/ps/0", &spec).ok());
  SessionOptions options = ClientOptions(spec);
  options.setup_timeout_ms = 200;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST(errors::IsUnavailable(s));
  BOOST_TEST(s.message().find("nosuchcluster") != std::string::npos, s.message());
}

// One graph over 2 ps + 3 workers (tensors ps -> worker -> worker -> ps,
// one of them large enough to cross in chunks), then each worker's own
// client updating the shared variables.
BOOST_AUTO_TEST_CASE(a_graph_spanning_two_ps_and_three_workers_computes_the_right_values) {
  std::unique_ptr<VirtualCluster> cluster;
  BOOST_TEST_REQUIRE(VirtualCluster::Start(VirtualClusterOptions::PsWorkers(2, 3), &cluster).ok());
  {
    Scope root = Scope::NewRootScope();
    const Scope ps0 = root.WithDevice("/job:ps/task:0"), ps1 = root.WithDevice("/job:ps/task:1");
    const Scope w0 = root.WithDevice(VirtualCluster::DeviceName("worker", 0));
    const Scope w1 = root.WithDevice(VirtualCluster::DeviceName("worker", 1));
    const Scope w2 = root.WithDevice(VirtualCluster::DeviceName("worker", 2));
    Variable a(ps0.WithOpName("a"), Input::Initializer(2.0f));
    Variable b(ps1.WithOpName("b"), Input::Initializer(5.0f));
    auto x = ops::Mul(w0, ops::Identity(w0, a), 3.0f);            // 6 on worker 0
    auto y = ops::Add(w1, x, ops::Identity(w1, b));                // 11 on worker 1
    auto z = ops::Mul(w2, y, ops::Identity(w2, a));                // 22 on worker 2
    auto update = ops::AssignAdd(ps1, b, z);                       // b = 27
    // 2 Mi floats (8 MiB) filled on ps 0, summed on worker 2: chunks.
    Tensor dims(DT_INT64, TensorShape{1});
    dims.data<int64_t>()[0] = int64_t{1} << 21;
    auto big = ops::Fill(ps0, ops::Const(ps0, Input::Initializer(dims)), 0.5f);
    auto total = ops::Sum(w2, big, ops::Const(w2, 0));
    ClientSession session(root, ClientOptions(cluster->spec()));
    BOOST_TEST_REQUIRE(session.status().ok(), session.status().ToString());
    BOOST_TEST_REQUIRE(session.Run({}, {}, {a.initializer, b.initializer}, nullptr).ok());
    std::vector<Tensor> out;
    Status s = session.Run({}, {z, total}, {update.operation}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(Scalar(out[0]) == 22.0f);
    BOOST_TEST(Scalar(out[1]) == 0.5f * (1 << 21));
    BOOST_TEST_REQUIRE(session.Run({ops::Identity(ps1, b)}, &out).ok());
    BOOST_TEST(Scalar(out[0]) == 27.0f);
  }
  const VirtualTransportStats after_graph = cluster->stats();
  BOOST_TEST(after_graph.tensor_messages > 0);
  BOOST_TEST(after_graph.bytes > (int64_t{8} << 20));  // the big tensor crossed the model
  // Each worker's client: its own master, its compute on its own task.
  std::vector<std::thread> clients;
  std::atomic<int> failures{0};
  for (int k = 0; k < 3; ++k) {
    clients.emplace_back([&, k] {
      Scope root = Scope::NewRootScope();
      const Scope ps0 = root.WithDevice("/job:ps/task:0"), ps1 = root.WithDevice("/job:ps/task:1");
      const Scope mine = root.WithDevice(VirtualCluster::DeviceName("worker", k));
      Variable a(ps0.WithOpName("a"), Input::Initializer(2.0f));
      Variable b(ps1.WithOpName("b"), Input::Initializer(5.0f));
      auto delta = ops::Mul(mine, ops::Identity(mine, a), static_cast<float>(k + 1));
      auto update = ops::AssignAdd(ps1, b, delta);  // + 2, 4, 6
      ClientSession session(root, ClientOptions(cluster->ClientSpec("worker", k)));
      std::vector<Tensor> out;
      Status s = session.Run({}, {delta}, {update.operation}, &out);
      if (!s.ok() || Scalar(out[0]) != 2.0f * (k + 1)) {
        BOOST_TEST_MESSAGE("worker " << k << ": " << s.ToString());
        ++failures;
      }
      // Its devices: the ps tasks and its own task, no other worker.
      for (const DeviceAttributes& d : session.session()->ListDevices()) {
        if (d.name.find("/job:worker/") != std::string::npos &&
            d.name != VirtualCluster::DeviceName("worker", k))
          ++failures;
      }
    });
  }
  for (auto& t : clients) t.join();
  BOOST_TEST(failures.load() == 0);
  Scope root = Scope::NewRootScope();
  Variable b(root.WithDevice("/job:ps/task:1").WithOpName("b"), Input::Initializer(5.0f));
  ClientSession reader(root, ClientOptions(cluster->spec()));
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(reader.Run({ops::Identity(root.WithDevice("/job:ps/task:1"), b)}, &out).ok());
  BOOST_TEST(Scalar(out[0]) == 27.0f + 2 + 4 + 6);
  BOOST_TEST(cluster->stats().free_messages > 0);  // each client's master to its own task
}

// A null step of worker 0: RunGraph to the ps task (a request: 2 hops),
// the value to the worker (1 hop), the update back (1 hop): at least 4 L.
BOOST_AUTO_TEST_CASE(the_latency_of_each_hop_shows_in_the_step_time) {
  constexpr double kLatencyMs = 20;
  TransportModel model;
  model.latency_us = kLatencyMs * 1000;
  model.bandwidth_bytes_per_s = 0;
  std::unique_ptr<VirtualCluster> cluster;
  BOOST_TEST_REQUIRE(
      VirtualCluster::Start(VirtualClusterOptions::PsWorkers(1, 1, model), &cluster).ok());
  Scope root = Scope::NewRootScope();
  const Scope ps = root.WithDevice("/job:ps/task:0");
  const Scope mine = root.WithDevice(VirtualCluster::DeviceName("worker", 0));
  Variable v(ps.WithOpName("v"), Input::Initializer(1.0f));
  auto delta = ops::Mul(mine, ops::Identity(mine, v), 1e-3f);
  auto update = ops::AssignAdd(ps, v, delta);
  ClientSession session(root, ClientOptions(cluster->ClientSpec("worker", 0)));
  BOOST_TEST_REQUIRE(session.Run({}, {}, {v.initializer}, nullptr).ok());
  BOOST_TEST_REQUIRE(session.Run({}, {}, {update.operation}, nullptr).ok());  // plans cached
  for (int i = 0; i < 3; ++i) {
    const auto t0 = Clock::now();
    BOOST_TEST_REQUIRE(session.Run({}, {}, {update.operation}, nullptr).ok());
    const double ms = Ms(Clock::now() - t0);
    BOOST_TEST(ms >= 4 * kLatencyMs, "step took " << ms << " ms");
  }
}

// A link carries B bytes in B / bandwidth: 8 MiB at 200 MB/s >= 41 ms.
BOOST_AUTO_TEST_CASE(a_link_carries_a_large_tensor_at_its_bandwidth) {
  TransportModel model;
  model.latency_us = 0;
  model.bandwidth_bytes_per_s = 200e6;
  std::unique_ptr<VirtualCluster> cluster;
  BOOST_TEST_REQUIRE(
      VirtualCluster::Start(VirtualClusterOptions::PsWorkers(1, 1, model), &cluster).ok());
  Scope root = Scope::NewRootScope();
  const Scope ps = root.WithDevice("/job:ps/task:0");
  const Scope mine = root.WithDevice(VirtualCluster::DeviceName("worker", 0));
  Tensor dims(DT_INT64, TensorShape{1});
  dims.data<int64_t>()[0] = int64_t{1} << 21;
  auto big = ops::Fill(ps, ops::Const(ps, Input::Initializer(dims)), 1.0f);
  auto total = ops::Sum(mine, big, ops::Const(mine, 0));
  ClientSession session(root, ClientOptions(cluster->ClientSpec("worker", 0)));
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({total}, &out).ok());
  const auto t0 = Clock::now();
  BOOST_TEST_REQUIRE(session.Run({total}, &out).ok());
  const double ms = Ms(Clock::now() - t0);
  BOOST_TEST(Scalar(out[0]) == static_cast<float>(1 << 21));
  BOOST_TEST(ms >= (8 << 20) / 200e6 * 1e3, "step took " << ms << " ms");
}

BOOST_AUTO_TEST_CASE(a_straggler_delays_its_task_steps) {
  TransportModel model;
  model.stragglers["/job:worker/replica:0/task:0"] = StragglerModel{1.0, 50, 0};
  std::unique_ptr<VirtualCluster> cluster;
  BOOST_TEST_REQUIRE(
      VirtualCluster::Start(VirtualClusterOptions::PsWorkers(1, 1, model), &cluster).ok());
  Scope root = Scope::NewRootScope();
  const Scope mine = root.WithDevice(VirtualCluster::DeviceName("worker", 0));
  auto x = ops::Mul(mine, ops::Const(mine, 2.0f), 3.0f);
  ClientSession session(root, ClientOptions(cluster->ClientSpec("worker", 0)));
  std::vector<Tensor> out;
  const auto t0 = Clock::now();
  BOOST_TEST_REQUIRE(session.Run({x}, &out).ok());
  BOOST_TEST(Ms(Clock::now() - t0) >= 50.0);
  BOOST_TEST(Scalar(out[0]) == 6.0f);
  BOOST_TEST(cluster->stats().straggler_delays >= 1);
}

// The paper's scale on one machine: 100 workers, each with its own client
// (master in this process), stepping at once against 16 ps tasks.
BOOST_AUTO_TEST_CASE(a_hundred_workers_and_sixteen_ps_run_a_null_step) {
  constexpr int kPs = 16, kWorkers = 100;
  std::unique_ptr<VirtualCluster> cluster;
  BOOST_TEST_REQUIRE(
      VirtualCluster::Start(VirtualClusterOptions::PsWorkers(kPs, kWorkers), &cluster).ok());
  auto build = [&](Scope& root, const std::string& worker_device, std::vector<Operation>* inits) {
    const Scope mine = root.WithDevice(worker_device);
    std::vector<Operation> applies;
    for (int t = 0; t < kPs; ++t) {
      const Scope ps = root.WithDevice(ClusterSpec::TaskName("ps", t) + "/device:CPU:0");
      Variable v(ps.WithOpName("v" + std::to_string(t)), Input::Initializer(1.0f));
      if (inits) inits->push_back(v.initializer);
      auto delta = ops::Mul(mine, ops::Identity(mine, v), 0.0f);
      applies.push_back(ops::AssignAdd(ps, v, delta).operation);
    }
    return ops::NoOp(root.WithControlDependencies(applies).WithOpName("null_step"));
  };
  {
    Scope root = Scope::NewRootScope();
    std::vector<Operation> inits;
    build(root, VirtualCluster::DeviceName("worker", 0), &inits);
    ClientSession chief(root, ClientOptions(cluster->ClientSpec("worker", 0)));
    BOOST_TEST_REQUIRE(chief.Run({}, {}, inits, nullptr).ok());
  }
  std::atomic<int> ok{0};
  std::vector<std::string> errors_seen(kWorkers);
  std::vector<std::thread> clients;
  const auto start = Clock::now();
  for (int k = 0; k < kWorkers; ++k) {
    clients.emplace_back([&, k] {
      Scope root = Scope::NewRootScope();
      Operation step = build(root, VirtualCluster::DeviceName("worker", k), nullptr);
      // Failure detection is not under test: 101 sessions probing 116 tasks
      // on two cores (slower still under ThreadSanitizer) must not be
      // declared lost for a late heartbeat.
      SessionOptions options = ClientOptions(cluster->ClientSpec("worker", k));
      options.worker_lost_after_ms = 15000;
      ClientSession session(root, options);
      Status s = session.status();
      for (int i = 0; i < 3 && s.ok(); ++i) s = session.Run({}, {}, {step}, nullptr);
      if (s.ok()) ++ok;
      else errors_seen[k] = s.ToString();
    });
  }
  for (auto& t : clients) t.join();
  for (int k = 0; k < kWorkers; ++k) {
    BOOST_TEST(errors_seen[k].empty(), "worker " << k << ": " << errors_seen[k]);
  }
  BOOST_TEST(ok.load() == kWorkers);
  BOOST_TEST_MESSAGE("100 workers x 3 null steps over 16 ps: " << Ms(Clock::now() - start)
                                                                << " ms");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
