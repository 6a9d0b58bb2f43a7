// Abs, Sign, the floating-point unary ops (Sqrt ... Reciprocal, Inv) and the
// gradient helpers against double-precision reference loops.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

using Ref1 = std::function<double(double)>;
using Ref2 = std::function<double(double, double)>;

const std::vector<TensorShape>& Shapes() {
  static const std::vector<TensorShape> shapes = {
      TensorShape{}, TensorShape{7}, TensorShape{3, 5, 2}, TensorShape{0, 4}, TensorShape{1000}};
  return shapes;
}

// Compares op(x) with ref over random x in [lo, hi), relative tolerance `rtol`.
template <typename T>
void CheckUnary(const std::string& op, const Ref1& ref, double lo, double hi, double rtol) {
  uint32_t seed = 101;
  for (const TensorShape& shape : Shapes()) {
    BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                          << shape.DebugString()) {
      Tensor x = RandomTensor<T>(shape, ++seed, lo, hi);
      auto out = RunKernel(op, {x});
      AF_REQUIRE_OK(out.status());
      std::vector<double> want;
      for (int64_t i = 0; i < x.NumElements(); ++i) want.push_back(ref(ValueAsDouble(x, i)));
      AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, shape, want, rtol, rtol));
    }
  }
}

template <typename T>
void CheckFloatUnaryOps() {
  const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-14;
  CheckUnary<T>("Abs", [](double a) { return std::fabs(a); }, -10, 10, 0);
  CheckUnary<T>("Sign", [](double a) { return double((a > 0) - (a < 0)); }, -10, 10, 0);
  CheckUnary<T>("Sqrt", [](double a) { return std::sqrt(a); }, 0, 100, tol);
  CheckUnary<T>("Rsqrt", [](double a) { return 1 / std::sqrt(a); }, 0.01, 100, tol);
  CheckUnary<T>("Exp", [](double a) { return std::exp(a); }, -20, 20, tol);
  CheckUnary<T>("Log", [](double a) { return std::log(a); }, 0.001, 1000, tol);
  CheckUnary<T>("Log1p", [](double a) { return std::log1p(a); }, -0.999, 10, tol);
  CheckUnary<T>("Tanh", [](double a) { return std::tanh(a); }, -8, 8, tol);
  CheckUnary<T>("Sigmoid", [](double a) { return 1 / (1 + std::exp(-a)); }, -30, 30, tol);
  CheckUnary<T>("Reciprocal", [](double a) { return 1 / a; }, 0.1, 50, tol);
  CheckUnary<T>("Inv", [](double a) { return 1 / a; }, -50, -0.1, tol);
}

template <typename T>
void CheckIntegerUnaryOps() {
  CheckUnary<T>("Abs", [](double a) { return std::fabs(a); }, -1000, 1000, 0);
  CheckUnary<T>("Sign", [](double a) { return double((a > 0) - (a < 0)); }, -3, 3, 0);
}

// Gradient helper op(y, dy) against ref, y drawn from [lo, hi).
template <typename T>
void CheckGrad(const std::string& op, const Ref2& ref, double lo, double hi) {
  const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-14;
  uint32_t seed = 301;
  for (const TensorShape& shape : Shapes()) {
    BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                          << shape.DebugString()) {
      Tensor y = RandomTensor<T>(shape, ++seed, lo, hi);
      Tensor dy = RandomTensor<T>(shape, ++seed, -3, 3);
      auto out = RunKernel(op, {y, dy});
      AF_REQUIRE_OK(out.status());
      std::vector<double> want;
      for (int64_t i = 0; i < y.NumElements(); ++i)
        want.push_back(ref(ValueAsDouble(y, i), ValueAsDouble(dy, i)));
      AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, shape, want, tol, tol));
    }
  }
}

template <typename T>
void CheckGrads() {
  CheckGrad<T>("SigmoidGrad", [](double y, double dy) { return dy * y * (1 - y); }, 0, 1);
  CheckGrad<T>("TanhGrad", [](double y, double dy) { return dy * (1 - y * y); }, -1, 1);
  CheckGrad<T>("SqrtGrad", [](double y, double dy) { return 0.5 * dy / y; }, 0.1, 10);
  CheckGrad<T>("RsqrtGrad", [](double y, double dy) { return -0.5 * dy * y * y * y; }, 0.1, 3);
  CheckGrad<T>("ReciprocalGrad", [](double y, double dy) { return -dy * y * y; }, -5, 5);
  CheckGrad<T>("InvGrad", [](double y, double dy) { return -dy * y * y; }, -5, 5);
}

BOOST_AUTO_TEST_SUITE(cwise_math)

BOOST_AUTO_TEST_CASE(float_unary_ops) { CheckFloatUnaryOps<float>(); }
BOOST_AUTO_TEST_CASE(double_unary_ops) { CheckFloatUnaryOps<double>(); }
BOOST_AUTO_TEST_CASE(int32_abs_and_sign) { CheckIntegerUnaryOps<int32_t>(); }
BOOST_AUTO_TEST_CASE(int64_abs_and_sign) { CheckIntegerUnaryOps<int64_t>(); }

BOOST_AUTO_TEST_CASE(abs_of_the_most_negative_integer_wraps) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto out = RunKernel("Abs", {Tensor::FromVector<int64_t>({kMin, -5, 0, 7})});
  AF_REQUIRE_OK(out.status());
  const int64_t* z = (*out)[0].data<int64_t>();
  BOOST_CHECK_EQUAL(z[0], kMin);
  BOOST_CHECK_EQUAL(z[1], 5);
  BOOST_CHECK_EQUAL(z[2], 0);
  BOOST_CHECK_EQUAL(z[3], 7);
}

BOOST_AUTO_TEST_CASE(special_values) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {nan, inf, -inf, 0.0, -0.0, -1.0};
  struct Case {
    std::string op;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {
      {"Sign", {nan, 1, -1, 0, 0, -1}},
      {"Abs", {nan, inf, inf, 0, 0, 1}},
      {"Sqrt", {nan, inf, nan, 0, -0.0, nan}},
      {"Rsqrt", {nan, 0, nan, inf, -inf, nan}},
      {"Exp", {nan, inf, 0, 1, 1, std::exp(-1.0)}},
      {"Log", {nan, inf, nan, -inf, -inf, nan}},
      {"Log1p", {nan, inf, nan, 0, -0.0, -inf}},
      {"Tanh", {nan, 1, -1, 0, -0.0, std::tanh(-1.0)}},
      {"Sigmoid", {nan, 1, 0, 0.5, 0.5, 1 / (1 + std::exp(1.0))}},
      {"Reciprocal", {nan, 0, -0.0, inf, -inf, -1}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.op) {
      auto out = RunKernel(c.op, {Tensor::FromVector<double>(x)});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], DT_DOUBLE, {6}, c.want, 1e-15));
    }
  }
}

BOOST_AUTO_TEST_CASE(sigmoid_saturates_without_nan_in_float) {
  auto out = RunKernel("Sigmoid", {Tensor::FromVector<float>({-200.0f, 200.0f, -88.0f})});
  AF_REQUIRE_OK(out.status());
  const float* z = (*out)[0].data<float>();
  BOOST_CHECK_EQUAL(z[0], 0.0f);
  BOOST_CHECK_EQUAL(z[1], 1.0f);
  BOOST_CHECK(z[2] > 0.0f && z[2] < 1e-37f);
}

BOOST_AUTO_TEST_CASE(float_grads) { CheckGrads<float>(); }
BOOST_AUTO_TEST_CASE(double_grads) { CheckGrads<double>(); }

BOOST_AUTO_TEST_CASE(grads_take_y_shape_and_need_equal_sizes) {
  // Same element count, different shape: output follows y, as TensorFlow.
  auto ok = RunKernel("TanhGrad", {RandomTensor<float>({2, 3}, 1), RandomTensor<float>({6}, 2)});
  AF_REQUIRE_OK(ok.status());
  BOOST_CHECK_EQUAL((*ok)[0].shape(), TensorShape({2, 3}));

  auto bad =
      RunKernel("SigmoidGrad", {RandomTensor<float>({2, 3}, 1), RandomTensor<float>({3}, 2)});
  ExpectError(bad, Code::INVALID_ARGUMENT, "SigmoidGrad",
              {"must have same number of elements", "6 and 3"});
}

BOOST_AUTO_TEST_CASE(integer_inputs_have_no_float_kernels) {
  // Sqrt's OpDef admits no integers; Reciprocal's does but, as in
  // TensorFlow's CPU build, no integer kernel exists.
  BOOST_CHECK(!RunKernel("Sqrt", {Tensor::FromVector<int32_t>({4})}).ok());
  BOOST_CHECK(!RunKernel("Reciprocal", {Tensor::FromVector<int32_t>({4})}).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
