// Trains a 20-16-2 MLP on linearly separable synthetic data through the
// C++ API (variables, initializer, gradients, GradientDescent) and checks
// that the loss falls and the classifier learns the data.
#include <boost/test/unit_test.hpp>

#include <random>

#include "client/client_session.h"
#include "client/optimizers/gradient_descent.h"
#include "client/standard_ops.h"

namespace af {
namespace {

constexpr int kExamples = 128, kInputs = 20, kHidden = 16, kClasses = 2;

Tensor RandomNormal(const TensorShape& shape, float stddev, std::mt19937* rng) {
  std::normal_distribution<float> normal(0.0f, stddev);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = normal(*rng);
  return t;
}

BOOST_AUTO_TEST_CASE(mlp_loss_falls_with_gradient_descent) {
  std::mt19937 rng(42);
  // Labels from a fixed random hyperplane: the data is separable.
  Tensor features = RandomNormal({kExamples, kInputs}, 1.0f, &rng);
  Tensor direction = RandomNormal({kInputs}, 1.0f, &rng);
  Tensor labels(DT_INT32, TensorShape{kExamples});
  for (int e = 0; e < kExamples; ++e) {
    float dot = 0;
    for (int i = 0; i < kInputs; ++i)
      dot += features.data<float>()[e * kInputs + i] * direction.data<float>()[i];
    labels.data<int32_t>()[e] = dot > 0 ? 1 : 0;
  }

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, kInputs}));
  auto y = ops::Placeholder(root.WithOpName("y"), DT_INT32, PartialTensorShape({-1}));
  Scope layer1 = root.NewSubScope("layer1");
  Variable w1(layer1.WithOpName("w"), RandomNormal({kInputs, kHidden}, 0.3f, &rng));
  Variable b1(layer1.WithOpName("b"), ops::Const(layer1, 0.0f, TensorShape{kHidden}));
  auto hidden = ops::Relu(layer1, ops::BiasAdd(layer1, ops::MatMul(layer1, x, w1), b1));
  Scope layer2 = root.NewSubScope("layer2");
  Variable w2(layer2.WithOpName("w"), RandomNormal({kHidden, kClasses}, 0.3f, &rng));
  Variable b2(layer2.WithOpName("b"), ops::Const(layer2, 0.0f, TensorShape{kClasses}));
  auto logits = ops::BiasAdd(layer2, ops::MatMul(layer2, hidden, w2), b2);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, y);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, 0);
  auto predictions = ops::ArgMax(root, logits, 1, ops::ArgMax::OutputType(DT_INT32));
  auto correct = ops::Sum(root, ops::Cast(root, ops::Equal(root, predictions, y), DT_FLOAT), 0);

  GradientDescentOptimizer sgd(0.5);
  Operation train;
  Status s = sgd.Minimize(root, loss, &train);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(TrainableVariables(root).size() == 4u);
  BOOST_TEST_REQUIRE(root.ok(), root.status());

  ClientSession session(root);
  std::vector<Tensor> out;
  s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const ClientSession::FeedType feeds = {{x, features}, {y, labels}};
  BOOST_TEST_REQUIRE(session.Run(feeds, {loss}, &out).ok());
  const float initial = out[0].scalar<float>();
  float final_loss = initial;
  for (int step = 0; step < 300; ++step) {
    s = session.Run(feeds, {loss}, {train}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    final_loss = out[0].scalar<float>();
  }
  BOOST_TEST_REQUIRE(session.Run(feeds, {loss, correct, GetOrCreateGlobalStep(root)}, &out).ok());
  final_loss = out[0].scalar<float>();
  BOOST_TEST_MESSAGE("loss " << initial << " -> " << final_loss << ", correct "
                             << out[1].scalar<float>() << "/" << kExamples);
  BOOST_TEST(final_loss < 0.25f * initial);
  BOOST_TEST(out[1].scalar<float>() >= 0.95f * kExamples);
  BOOST_TEST(out[2].scalar<int64_t>() == 300);
}

}  // namespace
}  // namespace af
