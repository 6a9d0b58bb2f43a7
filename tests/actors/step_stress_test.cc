// Many steps, sequential and concurrent, over a graph that mixes every way a
// node can run: cheap kernels inline, expensive ones on the device pools, an
// async Recv across two devices, an async queue round trip, and a dead branch
// of a cond. Every step must produce every fetch with the right value.
//
// This is the test that would have caught the lost-fetch race: `_Retval`
// nodes finishing on two pool threads at once set neighbouring bits of one
// std::vector<bool> word, and about one step in fifty ended OK with a fetch
// missing. A few thousand steps make such a race near-certain to show.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "client/client_session.h"
#include "client/standard_ops.h"

namespace af {
namespace {

constexpr int kDim = 16;
constexpr int kConcurrentFetches = 12;

struct MixedGraph {
  Scope root = Scope::NewRootScope();
  Output x, pred;
  std::vector<Output> fetches;
  Operation enqueue;

  MixedGraph() {
    Scope dev0 = root.WithDevice("/device:CPU:0");
    Scope dev1 = root.WithDevice("/device:CPU:1");
    x = ops::Placeholder(dev0.WithOpName("x"), DT_FLOAT, PartialTensorShape({kDim, kDim}));
    pred = ops::Placeholder(dev0.WithOpName("pred"), DT_BOOL, PartialTensorShape({}));
    // Independent MatMuls: expensive, so they run on the pool threads at the
    // same time and their _Retval nodes finish concurrently.
    for (int i = 0; i < kConcurrentFetches; ++i) {
      Output scaled = ops::Mul(dev0, x, static_cast<float>(i + 1));
      fetches.push_back(ops::MatMul(dev0, scaled, x));
    }
    // Cheap inline nodes.
    fetches.push_back(ops::Neg(dev0, x));
    fetches.push_back(ops::Sum(dev0, x, ops::Const(dev0, {0, 1})));
    // Across devices: Send on CPU:0, async Recv on CPU:1, and back.
    Output remote = ops::MatMul(dev1, fetches[0], x);
    fetches.push_back(ops::Tanh(dev1, remote));
    // A cond: one branch is dead every step, Merge forwards the live one.
    auto sw = ops::Switch(dev0, x, pred);
    Output taken = ops::Square(dev0, sw.output_true);
    Output not_taken = ops::Neg(dev0, sw.output_false);
    fetches.push_back(ops::Merge(dev0, {taken, not_taken}).output);
    // An async queue round trip inside the step. Concurrent steps share the
    // queue and may take each other's element, so the value is the same for
    // every step.
    auto queue = ops::FIFOQueueV2(dev0.WithOpName("stress_q"), {DT_FLOAT},
                                  ops::FIFOQueueV2::Capacity(64));
    Output twos = ops::Fill(dev0, ops::Const(dev0, {kDim, kDim}), 2.0f);
    enqueue = ops::QueueEnqueueV2(dev0, queue, {twos}).operation;
    auto dequeued =
        ops::QueueDequeueV2(dev0.WithControlDependencies({enqueue}), queue, {DT_FLOAT});
    fetches.push_back(dequeued[0]);
  }
};

Tensor Input(int seed) {
  Tensor t(DT_FLOAT, TensorShape({kDim, kDim}));
  float* p = t.data<float>();
  for (int i = 0; i < kDim * kDim; ++i) p[i] = std::sin(0.37f * (i + 13 * seed)) * 0.5f;
  return t;
}

bool SameValues(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const float* p = a.data<float>();
  const float* q = b.data<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i)
    if (p[i] != q[i]) return false;  // the same kernels on the same input: bit-identical
  return true;
}

// Runs one step and compares it with the expected outputs; returns a
// description of what went wrong, empty when the step was right.
std::string RunAndCheck(ClientSession& session, const MixedGraph& g, int seed, bool branch,
                        const std::vector<std::vector<Tensor>>& expected) {
  std::vector<Tensor> out;
  Status s = session.Run({{g.x, Input(seed)}, {g.pred, branch}}, g.fetches, &out);
  if (!s.ok()) return s.ToString();
  if (out.size() != g.fetches.size()) return "wrong number of outputs";
  const std::vector<Tensor>& want = expected[seed * 2 + (branch ? 1 : 0)];
  for (size_t i = 0; i < out.size(); ++i)
    if (!SameValues(out[i], want[i])) return "fetch " + std::to_string(i) + " has wrong values";
  return "";
}

constexpr int kSeeds = 3;

BOOST_AUTO_TEST_SUITE(step_stress)

BOOST_AUTO_TEST_CASE(every_fetch_of_thousands_of_steps_is_produced) {
  MixedGraph g;
  BOOST_REQUIRE(g.root.ok());
  SessionOptions options;
  options.num_cpu_devices = 2;
  options.threads_per_device = 2;
  ClientSession session(g.root, options);
  BOOST_REQUIRE_MESSAGE(session.status().ok(), session.status().ToString());

  // Expected outputs per (seed, branch), from one first run each.
  std::vector<std::vector<Tensor>> expected;
  for (int seed = 0; seed < kSeeds; ++seed) {
    for (bool branch : {false, true}) {
      std::vector<Tensor> out;
      Status s = session.Run({{g.x, Input(seed)}, {g.pred, branch}}, g.fetches, &out);
      BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
      BOOST_REQUIRE_EQUAL(out.size(), g.fetches.size());
      expected.push_back(out);
    }
  }
  // The cond really took one branch: Square or Neg of x.
  const float x0 = Input(0).data<float>()[5];
  const int merged = kConcurrentFetches + 3;
  BOOST_TEST(expected[0][merged].data<float>()[5] == -x0);
  BOOST_TEST(expected[1][merged].data<float>()[5] == x0 * x0);

  constexpr int kSequential = 16000;
  int failures = 0;
  std::string first_failure;
  for (int step = 0; step < kSequential; ++step) {
    std::string err = RunAndCheck(session, g, step % kSeeds, step % 2 == 1, expected);
    if (!err.empty() && failures++ == 0) first_failure = "step " + std::to_string(step) + ": " + err;
  }
  BOOST_TEST(failures == 0, failures << " of " << kSequential
                                     << " sequential steps failed; first: " << first_failure);

  constexpr int kThreads = 4, kPerThread = 4000;
  std::atomic<int> concurrent_failures{0};
  std::vector<std::string> first_errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 0; step < kPerThread; ++step) {
        std::string err = RunAndCheck(session, g, (step + t) % kSeeds, (step + t) % 2 == 0,
                                      expected);
        if (!err.empty()) {
          if (first_errors[t].empty()) first_errors[t] = err;
          concurrent_failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  std::string errors;
  for (const auto& e : first_errors)
    if (!e.empty()) errors += e + "; ";
  BOOST_TEST(concurrent_failures.load() == 0,
             concurrent_failures.load() << " of " << kThreads * kPerThread
                                        << " concurrent steps failed: " << errors);
  BOOST_TEST_MESSAGE("step_stress: " << kSequential + kThreads * kPerThread
                                     << " steps, every fetch produced");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
