// FloorDiv, FloorMod and Pow (broadcasting) against reference loops,
// including the sign rules for negative operands, zero divisors, integer
// overflow and negative integer exponents.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

using Ref2 = std::function<double(double, double)>;

struct ShapePair {
  TensorShape x, y;
};

const std::vector<ShapePair>& ShapePairs() {
  static const std::vector<ShapePair> pairs = {
      {{2, 3}, {2, 3}}, {{}, {4, 5}},           {{4, 5}, {}},  {{3, 4}, {4}},
      {{3, 1}, {3, 4}}, {{2, 1, 3}, {1, 4, 1}}, {{0, 3}, {3}}, {{5, 1, 1, 7}, {5, 6, 1}},
      {{1000}, {1000}},
  };
  return pairs;
}

template <typename T>
void CheckBinary(const std::string& op, const Ref2& ref, double lo, double hi, bool nonzero_y,
                 double y_lo, double y_hi, double tol) {
  uint32_t seed = 500;
  for (const auto& [xs, ys] : ShapePairs()) {
    BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                          << xs.DebugString() << " vs " << ys.DebugString()) {
      Tensor x = RandomTensor<T>(xs, ++seed, lo, hi);
      Tensor y = RandomTensor<T>(ys, ++seed, y_lo, y_hi);
      if (nonzero_y) {
        T* p = y.data<T>();
        for (int64_t i = 0; i < y.NumElements(); ++i)
          if (p[i] == T(0)) p[i] = T(-3);
      }
      auto out = RunKernel(op, {x, y});
      AF_REQUIRE_OK(out.status());
      const TensorShape shape = BroadcastReferenceShape({xs, ys});
      std::vector<double> want(shape.num_elements());
      for (int64_t i = 0; i < shape.num_elements(); ++i)
        want[i] = ref(ValueAsDouble(x, BroadcastSourceIndex(xs, shape, i)),
                      ValueAsDouble(y, BroadcastSourceIndex(ys, shape, i)));
      AF_EXPECT_OK(CheckTensor((*out)[0], DataTypeToEnum<T>::value, shape, want, tol, tol));
    }
  }
}

double PyFloorDiv(double a, double b) { return std::floor(a / b); }
double PyFloorMod(double a, double b) {
  const double r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

template <typename T>
void CheckFloorOps() {
  if constexpr (std::is_integral_v<T>) {
    CheckBinary<T>("FloorDiv", PyFloorDiv, -100, 100, true, -9, 9, 0);
    CheckBinary<T>("FloorMod", PyFloorMod, -100, 100, true, -9, 9, 0);
  } else {
    // The quotient and the final addition round in T, as the kernel's do;
    // the reference does the rest exactly.
    auto floor_div = [](double a, double b) { return std::floor(double(T(a) / T(b))); };
    auto floor_mod = [](double a, double b) {
      const double r = std::fmod(a, b);
      return (r != 0 && ((r < 0) != (b < 0))) ? double(T(r) + T(b)) : r;
    };
    CheckBinary<T>("FloorDiv", floor_div, -100, 100, true, -9, 9, 0);
    CheckBinary<T>("FloorMod", floor_mod, -100, 100, true, -9, 9, 0);
  }
}

BOOST_AUTO_TEST_SUITE(floor_division)

BOOST_AUTO_TEST_CASE(float_floor_ops) { CheckFloorOps<float>(); }
BOOST_AUTO_TEST_CASE(double_floor_ops) { CheckFloorOps<double>(); }
BOOST_AUTO_TEST_CASE(int32_floor_ops) { CheckFloorOps<int32_t>(); }
BOOST_AUTO_TEST_CASE(int64_floor_ops) { CheckFloorOps<int64_t>(); }

BOOST_AUTO_TEST_CASE(signs_follow_python) {
  // x // y and x % y for every sign combination: the remainder takes the
  // divisor's sign and (x // y) * y + x % y == x.
  const std::vector<int32_t> x = {7, -7, 7, -7, 6, -6, 0, 0};
  const std::vector<int32_t> y = {2, 2, -2, -2, 3, -3, 5, -5};
  auto div = RunKernel("FloorDiv", {Tensor::FromVector(x), Tensor::FromVector(y)});
  auto mod = RunKernel("FloorMod", {Tensor::FromVector(x), Tensor::FromVector(y)});
  AF_REQUIRE_OK(div.status());
  AF_REQUIRE_OK(mod.status());
  AF_EXPECT_OK(CheckTensor((*div)[0], DT_INT32, {8}, {3, -4, -4, 3, 2, 2, 0, 0}));
  AF_EXPECT_OK(CheckTensor((*mod)[0], DT_INT32, {8}, {1, 1, -1, -1, 0, 0, 0, 0}));

  auto fmod = RunKernel("FloorMod", {Tensor::FromVector<double>({7.5, -7.5, 7.5, -7.5}),
                                     Tensor::FromVector<double>({2, 2, -2, -2})});
  AF_REQUIRE_OK(fmod.status());
  AF_EXPECT_OK(CheckTensor((*fmod)[0], DT_DOUBLE, {4}, {1.5, 0.5, -0.5, -1.5}));
  auto fdiv = RunKernel("FloorDiv", {Tensor::FromVector<double>({7.5, -7.5, 1.0}),
                                     Tensor::FromVector<double>({2, 2, 0})});
  AF_REQUIRE_OK(fdiv.status());
  AF_EXPECT_OK(
      CheckTensor((*fdiv)[0], DT_DOUBLE, {3}, {3, -4, std::numeric_limits<double>::infinity()}));
}

BOOST_AUTO_TEST_CASE(most_negative_over_minus_one_wraps) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto div = RunKernel("FloorDiv", {Tensor::Scalar<int64_t>(kMin), Tensor::Scalar<int64_t>(-1)});
  auto mod = RunKernel("FloorMod", {Tensor::Scalar<int64_t>(kMin), Tensor::Scalar<int64_t>(-1)});
  AF_REQUIRE_OK(div.status());
  AF_REQUIRE_OK(mod.status());
  BOOST_CHECK_EQUAL((*div)[0].scalar<int64_t>(), kMin);
  BOOST_CHECK_EQUAL((*mod)[0].scalar<int64_t>(), 0);
}

BOOST_AUTO_TEST_CASE(integer_zero_divisor_is_an_error) {
  for (const std::string op : {"FloorDiv", "FloorMod"}) {
    auto out =
        RunKernel(op, {Tensor::FromVector<int32_t>({1, 2}), Tensor::FromVector<int32_t>({1, 0})});
    ExpectError(out, Code::INVALID_ARGUMENT, op, {"Integer division by zero"});
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pow)

template <typename T>
void CheckPow() {
  if constexpr (std::is_integral_v<T>) {
    CheckBinary<T>(
        "Pow", [](double a, double b) { return std::pow(a, b); }, -9, 9, false, 0, 6, 0);
  } else {
    const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-13;
    // Positive bases with real exponents.
    CheckBinary<T>(
        "Pow", [](double a, double b) { return std::pow(a, b); }, 0.01, 10, false, -3, 3, tol);
  }
}

BOOST_AUTO_TEST_CASE(float_pow) { CheckPow<float>(); }
BOOST_AUTO_TEST_CASE(double_pow) { CheckPow<double>(); }
BOOST_AUTO_TEST_CASE(int32_pow) { CheckPow<int32_t>(); }
BOOST_AUTO_TEST_CASE(int64_pow) { CheckPow<int64_t>(); }

BOOST_AUTO_TEST_CASE(negative_bases) {
  // Integer exponents of negative bases are real; fractional ones are NaN.
  auto out = RunKernel("Pow", {Tensor::FromVector<double>({-2, -2, -8, -2, 0, 0}),
                               Tensor::FromVector<double>({3, 2, 1.0 / 3, -1, 0, -1})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(
      CheckTensor((*out)[0], DT_DOUBLE, {6},
                  {-8, 4, std::nan(""), -0.5, 1, std::numeric_limits<double>::infinity()}));

  auto ints = RunKernel("Pow", {Tensor::FromVector<int32_t>({-2, -3, -1, 0}),
                                Tensor::FromVector<int32_t>({3, 4, 7, 0})});
  AF_REQUIRE_OK(ints.status());
  AF_EXPECT_OK(CheckTensor((*ints)[0], DT_INT32, {4}, {-8, 81, -1, 1}));
}

BOOST_AUTO_TEST_CASE(integer_overflow_wraps) {
  auto out = RunKernel(
      "Pow", {Tensor::FromVector<int32_t>({2, 3, 2}), Tensor::FromVector<int32_t>({31, 21, 32})});
  AF_REQUIRE_OK(out.status());
  const int32_t* z = (*out)[0].data<int32_t>();
  BOOST_CHECK_EQUAL(z[0], std::numeric_limits<int32_t>::min());  // 2^31 wraps
  BOOST_CHECK_EQUAL(z[1], static_cast<int32_t>(static_cast<uint32_t>(10460353203ull)));
  BOOST_CHECK_EQUAL(z[2], 0);
}

BOOST_AUTO_TEST_CASE(negative_integer_exponent_is_an_error) {
  auto out =
      RunKernel("Pow", {Tensor::FromVector<int64_t>({2, 2}), Tensor::FromVector<int64_t>({1, -1})});
  ExpectError(out, Code::INVALID_ARGUMENT, "Pow",
              {"Integers to negative integer powers are not allowed"});
}

BOOST_AUTO_TEST_CASE(incompatible_shapes_are_an_error) {
  auto out = RunKernel("Pow", {RandomTensor<float>({2, 3}, 1), RandomTensor<float>({4}, 2)});
  ExpectError(out, Code::INVALID_ARGUMENT, "Pow", {"Incompatible shapes: [2,3] vs. [4]"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
