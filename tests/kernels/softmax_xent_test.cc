// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits
// against double-precision references, including label broadcasting, large
// logits and out-of-range labels.
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

// Row r of logits as doubles; `row_of` maps a broadcast row.
std::vector<double> LogSoftmaxRow(const Tensor& logits, int64_t row, int64_t classes,
                                  int64_t step) {
  std::vector<double> x(classes);
  double max = -INFINITY;
  for (int64_t c = 0; c < classes; ++c) {
    x[c] = ValueAsDouble(logits, row * classes + c * step);
    max = std::max(max, x[c]);
  }
  double sum = 0;
  for (double v : x) sum += std::exp(v - max);
  for (double& v : x) v = v - max - std::log(sum);
  return x;
}

template <typename T>
void CheckDense(const TensorShape& logits_shape, const TensorShape& labels_shape, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("SoftmaxCrossEntropyWithLogits<" << DataTypeString(dt) << "> "
                                                      << logits_shape.DebugString() << " "
                                                      << labels_shape.DebugString()) {
    Tensor logits = RandomTensor<T>(logits_shape, seed, -10, 10);
    Tensor labels = RandomTensor<T>(labels_shape, seed + 1, 0, 1);
    auto out = RunKernel("SoftmaxCrossEntropyWithLogits", {logits, labels});
    AF_REQUIRE_OK(out.status());
    auto dim = [](const TensorShape& s, int d) {
      return d < 2 - s.dims() ? int64_t{1} : s.dim_size(d - (2 - s.dims()));
    };
    const int64_t batch = std::max(dim(logits_shape, 0), dim(labels_shape, 0));
    const int64_t classes = std::max(dim(logits_shape, 1), dim(labels_shape, 1));
    std::vector<double> loss(batch, 0.0), backprop(batch * classes);
    for (int64_t b = 0; b < batch; ++b) {
      // Broadcast rows and columns by index arithmetic on the [rows, cols] views.
      const int64_t lr = dim(logits_shape, 0) == 1 ? 0 : b;
      const int64_t yr = dim(labels_shape, 0) == 1 ? 0 : b;
      const int64_t lcols = dim(logits_shape, 1), ycols = dim(labels_shape, 1);
      std::vector<double> x(classes), y(classes);
      double max = -INFINITY, sum = 0;
      for (int64_t c = 0; c < classes; ++c) {
        x[c] = ValueAsDouble(logits, lr * lcols + (lcols == 1 ? 0 : c));
        y[c] = ValueAsDouble(labels, yr * ycols + (ycols == 1 ? 0 : c));
        max = std::max(max, x[c]);
      }
      for (double v : x) sum += std::exp(v - max);
      for (int64_t c = 0; c < classes; ++c) {
        const double log_p = x[c] - max - std::log(sum);
        loss[b] -= y[c] * log_p;
        backprop[b * classes + c] = std::exp(log_p) - y[c];
      }
    }
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, {batch}, loss, tol, tol));
    AF_EXPECT_OK(CheckTensor((*out)[1], dt, {batch, classes}, backprop, tol, tol));
  }
}

template <typename T, typename Index>
void CheckSparse(int64_t batch, int64_t classes, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  BOOST_TEST_CONTEXT("SparseSoftmaxCrossEntropyWithLogits<"
                     << DataTypeString(dt) << ", " << DataTypeString(DataTypeToEnum<Index>::value)
                     << "> " << batch << "x" << classes) {
    Tensor logits = RandomTensor<T>({batch, classes}, seed, -10, 10);
    Tensor labels = RandomTensor<Index>({batch}, seed + 1, 0, static_cast<double>(classes - 1));
    auto out = RunKernel("SparseSoftmaxCrossEntropyWithLogits", {logits, labels});
    AF_REQUIRE_OK(out.status());
    std::vector<double> loss(batch), backprop(batch * classes);
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<double> lp = LogSoftmaxRow(logits, b, classes, 1);
      const int64_t label = static_cast<int64_t>(ValueAsDouble(labels, b));
      loss[b] = -lp[label];
      for (int64_t c = 0; c < classes; ++c)
        backprop[b * classes + c] = std::exp(lp[c]) - (c == label ? 1.0 : 0.0);
    }
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, {batch}, loss, tol, tol));
    AF_EXPECT_OK(CheckTensor((*out)[1], dt, {batch, classes}, backprop, tol, tol));
  }
}

BOOST_AUTO_TEST_SUITE(softmax_xent)

BOOST_AUTO_TEST_CASE(dense) {
  uint32_t seed = 1;
  for (auto shapes : std::vector<std::pair<TensorShape, TensorShape>>{{{1, 1}, {1, 1}},
                                                                      {{5, 10}, {5, 10}},
                                                                      {{64, 10}, {64, 10}},
                                                                      {{3, 300}, {3, 300}},
                                                                      {{4, 6}, {1, 6}},
                                                                      {{1, 6}, {4, 6}},
                                                                      {{4, 6}, {6}},
                                                                      {{4, 1}, {4, 5}}}) {
    CheckDense<float>(shapes.first, shapes.second, seed += 2);
    CheckDense<double>(shapes.first, shapes.second, seed += 2);
  }
}

BOOST_AUTO_TEST_CASE(sparse) {
  uint32_t seed = 100;
  for (auto [batch, classes] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 10}, {64, 10}, {3, 300}, {0, 4}}) {
    CheckSparse<float, int32_t>(batch, classes, seed += 2);
    CheckSparse<float, int64_t>(batch, classes, seed += 2);
    CheckSparse<double, int64_t>(batch, classes, seed += 2);
  }
}

BOOST_AUTO_TEST_CASE(large_logits_stay_finite) {
  Tensor logits = Tensor::FromVector<float>({1000.f, 0.f, -1000.f}, {1, 3});
  auto dense = RunKernel("SoftmaxCrossEntropyWithLogits",
                         {logits, Tensor::FromVector<float>({0.f, 0.f, 1.f}, {1, 3})});
  AF_REQUIRE_OK(dense.status());
  AF_EXPECT_OK(CheckTensor((*dense)[0], DT_FLOAT, {1}, {2000.0}, 1e-6));
  AF_EXPECT_OK(CheckTensor((*dense)[1], DT_FLOAT, {1, 3}, {1, 0, -1}, 0, 1e-6));
  auto sparse =
      RunKernel("SparseSoftmaxCrossEntropyWithLogits", {logits, Tensor::FromVector<int32_t>({0})});
  AF_REQUIRE_OK(sparse.status());
  AF_EXPECT_OK(CheckTensor((*sparse)[0], DT_FLOAT, {1}, {0.0}, 0, 1e-6));
}

BOOST_AUTO_TEST_CASE(out_of_range_label_is_named) {
  for (int32_t bad : {3, -1}) {
    KernelRunner r("SparseSoftmaxCrossEntropyWithLogits", "xent");
    auto out = r.Input(RandomTensor<float>({3, 3}, 1))
                   .Input(Tensor::FromVector<int32_t>({0, bad, 1}))
                   .Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    const std::string want = "Received a label value of " + std::to_string(bad) +
                             " which is outside the valid range of [0, 3).  Label values: 0 " +
                             std::to_string(bad) + " 1";
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "xent") && Contains(out.status().message(), want),
        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(shape_errors_name_the_node) {
  {
    KernelRunner r("SoftmaxCrossEntropyWithLogits", "dense_xent");
    auto out = r.Input(RandomTensor<float>({2, 3}, 1)).Input(RandomTensor<float>({3, 3}, 2)).Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_TEST(out.status().code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "dense_xent") &&
                            Contains(out.status().message(),
                                     "must be broadcastable: logits_size=[2,3] labels_size=[3,3]"),
                        out.status().ToString());
  }
  {
    auto out = RunKernel("SoftmaxCrossEntropyWithLogits",
                         {RandomTensor<float>({2, 3, 4}, 1), RandomTensor<float>({2, 3, 4}, 2)});
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "2-dimensional"), out.status().ToString());
  }
  {
    KernelRunner r("SparseSoftmaxCrossEntropyWithLogits", "sparse_xent");
    auto out =
        r.Input(RandomTensor<float>({2, 3}, 1)).Input(Tensor::FromVector<int64_t>({0, 1, 2})).Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "sparse_xent") &&
                            Contains(out.status().message(), "same first dimension"),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
