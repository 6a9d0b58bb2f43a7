// Numerical checks of the neural-network gradients (double precision;
// batch normalization has only float kernels and is checked in float).
#include <boost/test/unit_test.hpp>

#include "grad_test_util.h"

namespace af {
namespace {

using testing::GradientError;
using testing::RandomTensor;

constexpr double kTol = 1e-6;

template <typename Build>
double Check(const TensorShape& shape, Build build, double lo = -1, double hi = 1) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(shape));
  Output y = build(root, Output(x));
  return GradientError(root, {x}, {RandomTensor(DT_DOUBLE, shape, lo, hi)}, {y});
}

BOOST_AUTO_TEST_SUITE(nn_grad)

BOOST_AUTO_TEST_CASE(activations) {
  // Relu and Relu6 have kinks at 0 and 6; the random values stay clear.
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Relu(s, x);
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Relu6(s, ops::Mul(s, x, 8.0));
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Elu(s, x);
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Selu(s, x);
             }) < kTol);
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::Softplus(s, x);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(softmax_and_log_softmax) {
  BOOST_TEST(Check({2, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::Softmax(s, x);
             }) < kTol);
  BOOST_TEST(Check({2, 4}, [](const Scope& s, const Output& x) -> Output {
               return ops::LogSoftmax(s, x);
             }) < kTol);
}

BOOST_AUTO_TEST_CASE(l2_loss_and_bias_add) {
  BOOST_TEST(Check({2, 3}, [](const Scope& s, const Output& x) -> Output {
               return ops::L2Loss(s, x);
             }) < kTol);
  for (const char* format : {"NHWC", "NCHW"}) {
    BOOST_TEST_CONTEXT(format) {
      Scope root = Scope::NewRootScope();
      const bool nchw = std::string(format) == "NCHW";
      const TensorShape vs = nchw ? TensorShape{2, 3, 2, 2} : TensorShape{2, 2, 2, 3};
      auto value = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape(vs));
      auto bias = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({3}));
      auto y = ops::BiasAdd(root, value, bias, ops::BiasAdd::DataFormat(format));
      BOOST_TEST(GradientError(root, {value, bias},
                               {RandomTensor(DT_DOUBLE, vs, -1, 1, 1),
                                RandomTensor(DT_DOUBLE, {3}, -1, 1, 2)},
                               {y}) < kTol);
    }
  }
}

BOOST_AUTO_TEST_CASE(softmax_cross_entropy) {
  // Both outputs used: the loss and the backprop output.
  Scope root = Scope::NewRootScope();
  auto logits = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto labels = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 3}));
  auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
  Tensor label_values = Tensor::FromVector<double>({0.2, 0.3, 0.5, 1.0, 0.0, 0.0}, {2, 3});
  BOOST_TEST(GradientError(root, {logits, labels},
                           {RandomTensor(DT_DOUBLE, {2, 3}), label_values},
                           {xent.loss, xent.backprop}) < kTol);

  Scope r2 = Scope::NewRootScope();
  auto logits2 = ops::Placeholder(r2, DT_DOUBLE, PartialTensorShape({3, 4}));
  auto sparse = ops::SparseSoftmaxCrossEntropyWithLogits(r2, logits2, {1, 0, 3});
  BOOST_TEST(GradientError(r2, {logits2}, {RandomTensor(DT_DOUBLE, {3, 4})}, {sparse.loss}) <
             kTol);
  Scope r3 = Scope::NewRootScope();
  auto logits3 = ops::Placeholder(r3, DT_DOUBLE, PartialTensorShape({3, 4}));
  auto sparse3 = ops::SparseSoftmaxCrossEntropyWithLogits(r3, logits3, {1, 0, 3});
  BOOST_TEST(GradientError(r3, {logits3}, {RandomTensor(DT_DOUBLE, {3, 4})},
                           {sparse3.loss, sparse3.backprop}) < kTol);
}

BOOST_AUTO_TEST_CASE(conv2d) {
  struct Case {
    const char* padding;
    int stride;
  };
  for (const Case c : {Case{"SAME", 1}, Case{"VALID", 1}, Case{"SAME", 2}}) {
    BOOST_TEST_CONTEXT(c.padding << " stride " << c.stride) {
      Scope root = Scope::NewRootScope();
      auto input = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({1, 4, 4, 2}));
      auto filter = ops::Placeholder(root, DT_DOUBLE, PartialTensorShape({2, 2, 2, 3}));
      auto y = ops::Conv2D(root, input, filter, {1, c.stride, c.stride, 1}, c.padding);
      BOOST_TEST(GradientError(root, {input, filter},
                               {RandomTensor(DT_DOUBLE, {1, 4, 4, 2}, -1, 1, 1),
                                RandomTensor(DT_DOUBLE, {2, 2, 2, 3}, -1, 1, 2)},
                               {y}) < kTol);
    }
  }
}

BOOST_AUTO_TEST_CASE(pooling) {
  for (const char* padding : {"VALID", "SAME"}) {
    BOOST_TEST_CONTEXT(padding) {
      // Distinct random values: the maximum of each window is unique.
      BOOST_TEST(Check({1, 4, 4, 2}, [padding](const Scope& s, const Output& x) -> Output {
                   return ops::MaxPool(s, x, {1, 2, 2, 1}, {1, 2, 2, 1}, padding);
                 }) < kTol);
      BOOST_TEST(Check({1, 5, 5, 1}, [padding](const Scope& s, const Output& x) -> Output {
                   return ops::AvgPool(s, x, {1, 3, 3, 1}, {1, 2, 2, 1}, padding);
                 }) < kTol);
    }
  }
}

BOOST_AUTO_TEST_CASE(fused_batch_norm_in_float) {
  for (bool training : {true, false}) {
    BOOST_TEST_CONTEXT("is_training " << training) {
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({2, 2, 2, 3}));
      auto scale = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({3}));
      auto offset = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({3}));
      Output mean = training ? Output(ops::Const(root, 0.0f, TensorShape{0}))
                             : Output(ops::Const(root, {0.1f, -0.2f, 0.3f}));
      Output var = training ? Output(ops::Const(root, 0.0f, TensorShape{0}))
                            : Output(ops::Const(root, {1.0f, 0.5f, 2.0f}));
      auto bn = ops::FusedBatchNormV3(root, x, scale, offset, mean, var,
                                      ops::FusedBatchNormV3::IsTraining(training));
      // Square the output so the x gradient in training is not identically
      // zero (a normalized batch sums to zero).
      auto y = ops::Square(root, bn.y);
      const double error = GradientError(
          root, {x, scale, offset},
          {RandomTensor(DT_FLOAT, {2, 2, 2, 3}, -1, 1, 1),
           RandomTensor(DT_FLOAT, {3}, 0.5, 1.5, 2), RandomTensor(DT_FLOAT, {3}, -1, 1, 3)},
          {y}, 1e-2);
      BOOST_TEST(error < 2e-2);
    }
  }
}

BOOST_AUTO_TEST_CASE(fused_batch_norm_v1_and_v2_in_float) {
  for (int version : {1, 2}) {
    BOOST_TEST_CONTEXT("version " << version) {
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({2, 2, 2, 3}));
      auto scale = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({3}));
      auto offset = ops::Const(root, {0.1f, 0.2f, 0.3f});
      auto empty = ops::Const(root, 0.0f, TensorShape{0});
      Output y = version == 1
                     ? ops::FusedBatchNorm(root, x, scale, offset, empty, empty).y
                     : ops::FusedBatchNormV2(root, x, scale, offset, empty, empty).y;
      const double error = GradientError(
          root, {x, scale},
          {RandomTensor(DT_FLOAT, {2, 2, 2, 3}, -1, 1, 4),
           RandomTensor(DT_FLOAT, {3}, 0.5, 1.5, 5)},
          {ops::Square(root, y)}, 1e-2);
      BOOST_TEST(error < 2e-2);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
