// A long training job alternates training steps with evaluations at another
// batch size, as the Fashion-MNIST trainer does at each epoch's end. After
// the first round nothing the session holds may grow: not the graph, not
// the cached step plans, not the containers, and no tensor memory stays in
// use between rounds.
#include <boost/test/unit_test.hpp>

#include <random>

#include "client/client_session.h"
#include "client/optimizers/gradient_descent.h"
#include "client/standard_ops.h"
#include "core/allocator.h"

namespace af {
namespace {

constexpr int kInputs = 64, kHidden = 256, kClasses = 10;
constexpr int kTrainBatch = 32, kEvalBatch = 500, kRounds = 40, kStepsPerRound = 5;

Tensor RandomNormal(const TensorShape& shape, std::mt19937* rng) {
  std::normal_distribution<float> normal(0.0f, 0.1f);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = normal(*rng);
  return t;
}

Tensor Labels(int n) {
  Tensor t(DT_INT32, TensorShape{n});
  for (int i = 0; i < n; ++i) t.data<int32_t>()[i] = i % kClasses;
  return t;
}

bool SameListing(const std::vector<ContainerListing>& a, const std::vector<ContainerListing>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].device != b[i].device || a[i].container != b[i].container ||
        a[i].resources != b[i].resources)
      return false;
  }
  return true;
}

BOOST_AUTO_TEST_CASE(evaluations_leave_nothing_behind) {
  std::mt19937 rng(7);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, kInputs}));
  auto y = ops::Placeholder(root.WithOpName("y"), DT_INT32, PartialTensorShape({-1}));
  Variable w1(root.WithOpName("w1"), RandomNormal({kInputs, kHidden}, &rng));
  Variable w2(root.WithOpName("w2"), RandomNormal({kHidden, kClasses}, &rng));
  auto logits = ops::MatMul(root, ops::Relu(root, ops::MatMul(root, x, w1)), w2);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, y);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, 0);
  auto predictions = ops::ArgMax(root, logits, 1, ops::ArgMax::OutputType(DT_INT32));
  auto correct = ops::Sum(root, ops::Cast(root, ops::Equal(root, predictions, y), DT_FLOAT), 0);
  GradientDescentOptimizer sgd(0.1);
  Operation train;
  BOOST_TEST_REQUIRE(sgd.Minimize(root, loss, &train).ok());
  BOOST_TEST_REQUIRE(root.ok(), root.status());

  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  const ClientSession::FeedType train_feeds = {{x, RandomNormal({kTrainBatch, kInputs}, &rng)},
                                               {y, Labels(kTrainBatch)}};
  const ClientSession::FeedType eval_feeds = {{x, RandomNormal({kEvalBatch, kInputs}, &rng)},
                                              {y, Labels(kEvalBatch)}};
  Allocator* allocator = GetCpuAllocator();

  SessionStats first_stats;
  std::vector<ContainerListing> first_listing;
  int64_t first_in_use = 0;
  std::vector<Tensor> out;
  for (int round = 0; round < kRounds; ++round) {
    for (int step = 0; step < kStepsPerRound; ++step) {
      Status s = session.Run(train_feeds, {loss}, {train}, &out);
      BOOST_TEST_REQUIRE(s.ok(), s);
    }
    Status s = session.Run(eval_feeds, {loss, correct}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    out.clear();

    SessionStats stats;
    s = session.session()->GetStats(&stats);
    BOOST_TEST_REQUIRE(s.ok(), s);
    std::vector<ContainerListing> listing;
    s = session.session()->ListContainers(&listing);
    BOOST_TEST_REQUIRE(s.ok(), s);
    const int64_t in_use = allocator->GetStats().bytes_in_use;
    if (round == 0) {
      first_stats = stats;
      first_listing = listing;
      first_in_use = in_use;
      // Two step kinds (train, evaluate) plus the initializer.
      BOOST_TEST(stats.cached_steps == 3);
      BOOST_TEST(stats.graph_nodes > 0);
      continue;
    }
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_TEST(stats.graph_nodes == first_stats.graph_nodes);
      BOOST_TEST(stats.cached_steps == first_stats.cached_steps);
      BOOST_TEST(stats.local_plans <= stats.cached_steps);
      BOOST_TEST(stats.steps_in_flight == 0);
      BOOST_TEST(SameListing(listing, first_listing));
      BOOST_TEST(in_use == first_in_use);
    }
  }
  SessionStats last;
  BOOST_TEST_REQUIRE(session.session()->GetStats(&last).ok());
  // The repeated steps became caller-thread plans; none were added later.
  BOOST_TEST(last.local_plans >= 2);
  BOOST_TEST(session.session()->Close().ok());
  BOOST_TEST(session.session()->GetStats(&last).code() == Code::FAILED_PRECONDITION);
}

}  // namespace
}  // namespace af
