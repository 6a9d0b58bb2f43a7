// BiasAdd, Relu and Softmax against reference loops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

template <typename T>
void CheckBiasAdd(const TensorShape& shape, bool nchw, uint32_t seed) {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  const int channel_dim = nchw ? 1 : shape.dims() - 1;
  const int64_t channels = shape.dim_size(channel_dim);
  BOOST_TEST_CONTEXT("BiasAdd<" << DataTypeString(dt) << "> " << shape.DebugString()
                                << (nchw ? " NCHW" : " NHWC")) {
    Tensor value = RandomTensor<T>(shape, seed, -50, 50);
    Tensor bias = RandomTensor<T>({channels}, seed + 1, -50, 50);
    KernelRunner runner("BiasAdd");
    runner.Attr("data_format", nchw ? "NCHW" : "NHWC").Input(value).Input(bias);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    // The channel of flat element i, from its multi-index.
    std::vector<double> want(shape.num_elements());
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      int64_t rest = i, channel = 0;
      for (int d = shape.dims() - 1; d >= 0; --d) {
        if (d == channel_dim) channel = rest % shape.dim_size(d);
        rest /= shape.dim_size(d);
      }
      want[i] = ValueAsDouble(value, i) + ValueAsDouble(bias, channel);
    }
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, shape, want, Tolerance<T>(), Tolerance<T>()));
  }
}

template <typename T>
void CheckBiasAddShapes() {
  uint32_t seed = 1;
  for (bool nchw : {false, true}) {
    CheckBiasAdd<T>({4, 3}, nchw, ++seed);
    CheckBiasAdd<T>({2, 3, 5}, nchw, ++seed);
    CheckBiasAdd<T>({2, 4, 3, 5}, nchw, ++seed);
    CheckBiasAdd<T>({2, 3, 2, 2, 4}, nchw, ++seed);
    CheckBiasAdd<T>({0, 3, 4}, nchw, ++seed);
    CheckBiasAdd<T>({1, 1}, nchw, ++seed);
  }
}

BOOST_AUTO_TEST_SUITE(nn_ops)

BOOST_AUTO_TEST_CASE(bias_add_float) { CheckBiasAddShapes<float>(); }
BOOST_AUTO_TEST_CASE(bias_add_double) { CheckBiasAddShapes<double>(); }
BOOST_AUTO_TEST_CASE(bias_add_int32) { CheckBiasAddShapes<int32_t>(); }
BOOST_AUTO_TEST_CASE(bias_add_int64) { CheckBiasAddShapes<int64_t>(); }

BOOST_AUTO_TEST_CASE(bias_add_rejects_a_bias_of_the_wrong_length) {
  KernelRunner runner("BiasAdd", "add_bias");
  runner.Input(RandomTensor<float>({2, 3}, 1)).Input(RandomTensor<float>({4}, 2));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "Must provide as many biases") &&
                          Contains(out.status().message(), "[4] vs. [2,3]") &&
                          Contains(out.status().message(), "add_bias"),
                      out.status().ToString());

  // NCHW checks dim 1, not the last dim.
  KernelRunner nchw("BiasAdd");
  nchw.Attr("data_format", "NCHW")
      .Input(RandomTensor<float>({2, 3, 5}, 1))
      .Input(RandomTensor<float>({5}, 2));
  BOOST_CHECK_EQUAL(nchw.Run().status().code(), Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(bias_add_rejects_bad_ranks) {
  auto vec = RunKernel("BiasAdd", {RandomTensor<float>({3}, 1), RandomTensor<float>({3}, 2)});
  BOOST_CHECK_EQUAL(vec.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(vec.status().message(), "Input tensor must be at least 2D: [3]"),
                      vec.status().ToString());
  auto mat_bias =
      RunKernel("BiasAdd", {RandomTensor<float>({2, 3}, 1), RandomTensor<float>({1, 3}, 2)});
  BOOST_CHECK_EQUAL(mat_bias.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(mat_bias.status().message(), "Biases must be 1D: [1,3]"),
                      mat_bias.status().ToString());
}

template <typename T>
void CheckRelu() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  for (const TensorShape& shape :
       {TensorShape{}, TensorShape{17}, TensorShape{4, 0}, TensorShape{3, 4, 5}}) {
    Tensor x = RandomTensor<T>(shape, 9, -5, 5);
    auto out = RunKernel("Relu", {x});
    AF_REQUIRE_OK(out.status());
    std::vector<double> want;
    for (int64_t i = 0; i < x.NumElements(); ++i)
      want.push_back(std::max(0.0, ValueAsDouble(x, i)));
    AF_EXPECT_OK(CheckTensor((*out)[0], dt, shape, want));
  }
}

BOOST_AUTO_TEST_CASE(relu_all_types) {
  CheckRelu<float>();
  CheckRelu<double>();
  CheckRelu<int32_t>();
  CheckRelu<int64_t>();
}

BOOST_AUTO_TEST_CASE(relu_keeps_nan) {
  auto out = RunKernel("Relu", {Tensor::Scalar(std::numeric_limits<float>::quiet_NaN())});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK(std::isnan((*out)[0].scalar<float>()));
}

// Reference softmax in double, computed directly (the inputs are modest).
std::vector<double> ReferenceSoftmax(const Tensor& x) {
  const int64_t depth = x.dim_size(x.dims() - 1);
  std::vector<double> y(x.NumElements());
  for (int64_t r = 0; depth > 0 && r < x.NumElements() / depth; ++r) {
    double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int64_t j = 0; j < depth; ++j) max = std::max(max, ValueAsDouble(x, r * depth + j));
    for (int64_t j = 0; j < depth; ++j) sum += std::exp(ValueAsDouble(x, r * depth + j) - max);
    for (int64_t j = 0; j < depth; ++j)
      y[r * depth + j] = std::exp(ValueAsDouble(x, r * depth + j) - max) / sum;
  }
  return y;
}

template <typename T>
void CheckSoftmax() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  uint32_t seed = 30;
  for (const TensorShape& shape : {TensorShape{1}, TensorShape{10}, TensorShape{4, 7},
                                   TensorShape{2, 3, 33}, TensorShape{0, 5}, TensorShape{3, 0}}) {
    BOOST_TEST_CONTEXT("Softmax<" << DataTypeString(dt) << "> " << shape.DebugString()) {
      Tensor x = RandomTensor<T>(shape, ++seed, -8.0, 8.0);
      auto out = RunKernel("Softmax", {x});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], dt, shape, ReferenceSoftmax(x), Tolerance<T>() * 10,
                               Tolerance<T>()));
      // Each row sums to 1.
      const int64_t depth = shape.dim_size(shape.dims() - 1);
      for (int64_t r = 0; depth > 0 && r < shape.num_elements() / depth; ++r) {
        double sum = 0.0;
        for (int64_t j = 0; j < depth; ++j) sum += ValueAsDouble((*out)[0], r * depth + j);
        BOOST_CHECK_CLOSE_FRACTION(sum, 1.0, Tolerance<T>() * 10);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(softmax_float) { CheckSoftmax<float>(); }
BOOST_AUTO_TEST_CASE(softmax_double) { CheckSoftmax<double>(); }

BOOST_AUTO_TEST_CASE(softmax_is_stable_for_large_logits) {
  // exp(1000) overflows even a double; shifting by the row max must not.
  Tensor x = Tensor::FromVector<float>({1000.f, 1000.f, 999.f, -1000.f, -1000.f, -1001.f}, {2, 3});
  auto out = RunKernel("Softmax", {x});
  AF_REQUIRE_OK(out.status());
  const double e = std::exp(-1.0), s = 2.0 + e;
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {2, 3}, {1 / s, 1 / s, e / s, 1 / s, 1 / s, e / s},
                           1e-6, 1e-7));
  auto big = RunKernel("Softmax", {Tensor::FromVector<double>({3e300, 0.0, -3e300})});
  AF_REQUIRE_OK(big.status());
  AF_EXPECT_OK(CheckTensor((*big)[0], DT_DOUBLE, {3}, {1, 0, 0}));
}

BOOST_AUTO_TEST_CASE(softmax_needs_at_least_one_dim) {
  KernelRunner runner("Softmax", "probs");
  runner.Input(Tensor::Scalar(1.f));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "logits must have >= 1 dimension, got []"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
