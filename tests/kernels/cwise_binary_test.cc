// Broadcasting binary kernels (arithmetic, comparisons, logic) against
// double-precision reference loops.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

using RefFn = std::function<double(double, double)>;

// NumPy broadcasting written the slow, obvious way.
TensorShape ReferenceShape(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d) {
    const int xd = d - (rank - x.dims()), yd = d - (rank - y.dims());
    const int64_t a = xd >= 0 ? x.dim_size(xd) : 1, b = yd >= 0 ? y.dim_size(yd) : 1;
    dims[d] = a == 1 ? b : a;
  }
  return TensorShape(dims);
}

int64_t SourceIndex(const TensorShape& src, const TensorShape& out, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (int d = out.dims() - 1; d >= 0; --d) {
    const int64_t i = flat % out.dim_size(d);
    flat /= out.dim_size(d);
    const int sd = d - (out.dims() - src.dims());
    if (sd < 0) continue;
    if (src.dim_size(sd) != 1) index += i * stride;
    stride *= src.dim_size(sd);
  }
  return index;
}

std::vector<double> ReferenceBinary(const Tensor& x, const Tensor& y, const RefFn& f) {
  const TensorShape out = ReferenceShape(x.shape(), y.shape());
  std::vector<double> z(out.num_elements());
  for (int64_t i = 0; i < out.num_elements(); ++i)
    z[i] = f(ValueAsDouble(x, SourceIndex(x.shape(), out, i)),
             ValueAsDouble(y, SourceIndex(y.shape(), out, i)));
  return z;
}

// Operands for value checks: small integers (so comparisons hit equality)
// or uniform reals; optionally no zeros (divisors).
template <typename T>
Tensor Operand(const TensorShape& shape, uint32_t seed, bool small_ints, bool nonzero) {
  Tensor t = (small_ints || std::is_integral_v<T>) ? RandomTensor<T>(shape, seed, -9, 9)
                                                   : RandomTensor<T>(shape, seed, -2.0, 2.0);
  if (nonzero) {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i)
      if (p[i] == T(0)) p[i] = T(3);
  }
  return t;
}

struct ShapePair {
  TensorShape x, y;
};

// Scalar, row, column, rank mismatch, size-1 dims, general strided, ranks
// past the inline dim storage, and empty tensors.
const std::vector<ShapePair>& ShapePairs() {
  static const std::vector<ShapePair> pairs = {
      {{2, 3}, {2, 3}},
      {{}, {}},
      {{}, {4, 5}},
      {{4, 5}, {}},
      {{1}, {7}},
      {{3, 4}, {4}},
      {{4}, {3, 4}},
      {{3, 4}, {3, 1}},
      {{3, 1}, {3, 4}},
      {{3, 1}, {1, 4}},
      {{2, 3, 4}, {3, 4}},
      {{2, 1, 4}, {3, 1}},
      {{1, 1}, {1}},
      {{5, 1, 3, 1}, {4, 1, 2}},
      {{2, 1, 2, 1, 2, 1, 2}, {1, 2, 1, 2, 1, 2, 1}},
      {{33, 17}, {33, 17}},
      {{0, 3}, {3}},
      {{0}, {}},
      {{2, 0}, {2, 1}},
  };
  return pairs;
}

template <typename T>
void CheckBinaryOp(const std::string& op, const RefFn& ref, DataType out_dtype,
                   bool small_ints = false, bool nonzero_y = false) {
  uint32_t seed = 100;
  for (const auto& p : ShapePairs()) {
    BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << "> "
                          << p.x.DebugString() << " vs " << p.y.DebugString()) {
      Tensor x = Operand<T>(p.x, ++seed, small_ints, false);
      Tensor y = Operand<T>(p.y, ++seed, small_ints, nonzero_y);
      auto out = RunKernel(op, {x, y});
      AF_REQUIRE_OK(out.status());
      const double tol = out_dtype == DT_BOOL ? 0.0 : Tolerance<T>();
      AF_EXPECT_OK(CheckTensor((*out)[0], out_dtype, ReferenceShape(p.x, p.y),
                               ReferenceBinary(x, y, ref), tol, tol));
    }
  }
}

template <typename T>
void CheckArithmetic() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  const RefFn add = [](double a, double b) { return a + b; };
  CheckBinaryOp<T>("Add", add, dt);
  CheckBinaryOp<T>("AddV2", add, dt);
  CheckBinaryOp<T>(
      "Sub", [](double a, double b) { return a - b; }, dt);
  CheckBinaryOp<T>(
      "Mul", [](double a, double b) { return a * b; }, dt);
  CheckBinaryOp<T>(
      "Maximum", [](double a, double b) { return std::max(a, b); }, dt);
  CheckBinaryOp<T>(
      "Minimum", [](double a, double b) { return std::min(a, b); }, dt);
  if constexpr (std::is_integral_v<T>) {
    CheckBinaryOp<T>(
        "Div", [](double a, double b) { return std::trunc(a / b); }, dt, false, true);
  } else {
    const RefFn div = [](double a, double b) { return a / b; };
    CheckBinaryOp<T>("Div", div, dt, false, true);
    CheckBinaryOp<T>("RealDiv", div, dt, false, true);
  }
}

template <typename T>
void CheckComparisons() {
  CheckBinaryOp<T>(
      "Less", [](double a, double b) { return double(a < b); }, DT_BOOL, true);
  CheckBinaryOp<T>(
      "LessEqual", [](double a, double b) { return double(a <= b); }, DT_BOOL, true);
  CheckBinaryOp<T>(
      "Greater", [](double a, double b) { return double(a > b); }, DT_BOOL, true);
  CheckBinaryOp<T>(
      "GreaterEqual", [](double a, double b) { return double(a >= b); }, DT_BOOL, true);
  CheckBinaryOp<T>(
      "Equal", [](double a, double b) { return double(a == b); }, DT_BOOL, true);
  CheckBinaryOp<T>(
      "NotEqual", [](double a, double b) { return double(a != b); }, DT_BOOL, true);
}

BOOST_AUTO_TEST_SUITE(cwise_binary)

BOOST_AUTO_TEST_CASE(arithmetic_float) { CheckArithmetic<float>(); }
BOOST_AUTO_TEST_CASE(arithmetic_double) { CheckArithmetic<double>(); }
BOOST_AUTO_TEST_CASE(arithmetic_int32) { CheckArithmetic<int32_t>(); }
BOOST_AUTO_TEST_CASE(arithmetic_int64) { CheckArithmetic<int64_t>(); }

BOOST_AUTO_TEST_CASE(comparisons_float) { CheckComparisons<float>(); }
BOOST_AUTO_TEST_CASE(comparisons_double) { CheckComparisons<double>(); }
BOOST_AUTO_TEST_CASE(comparisons_int32) { CheckComparisons<int32_t>(); }
BOOST_AUTO_TEST_CASE(comparisons_int64) { CheckComparisons<int64_t>(); }

BOOST_AUTO_TEST_CASE(logical_and_or_broadcast) {
  const RefFn land = [](double a, double b) { return double(a != 0 && b != 0); };
  const RefFn lor = [](double a, double b) { return double(a != 0 || b != 0); };
  uint32_t seed = 7;
  for (const auto& p : ShapePairs()) {
    BOOST_TEST_CONTEXT(p.x.DebugString() << " vs " << p.y.DebugString()) {
      Tensor x = RandomTensor<bool>(p.x, ++seed), y = RandomTensor<bool>(p.y, ++seed);
      auto a = RunKernel("LogicalAnd", {x, y});
      auto o = RunKernel("LogicalOr", {x, y});
      AF_REQUIRE_OK(a.status());
      AF_REQUIRE_OK(o.status());
      const TensorShape shape = ReferenceShape(p.x, p.y);
      AF_EXPECT_OK(CheckTensor((*a)[0], DT_BOOL, shape, ReferenceBinary(x, y, land)));
      AF_EXPECT_OK(CheckTensor((*o)[0], DT_BOOL, shape, ReferenceBinary(x, y, lor)));
    }
  }
  auto eq = RunKernel("Equal", {Tensor::FromVector<bool>({true, false}), Tensor::Scalar(true)});
  AF_REQUIRE_OK(eq.status());
  AF_EXPECT_OK(CheckTensor((*eq)[0], DT_BOOL, {2}, {1, 0}));
}

BOOST_AUTO_TEST_CASE(incompatible_shapes_fail_naming_the_node) {
  for (const char* op : {"Add", "Mul", "Less", "Equal"}) {
    KernelRunner runner(op, "my_node");
    runner.Input(RandomTensor<float>({2, 3}, 1)).Input(RandomTensor<float>({4}, 2));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    const std::string& msg = out.status().message();
    BOOST_CHECK_MESSAGE(msg.find("Incompatible shapes: [2,3] vs. [4]") != std::string::npos, msg);
    BOOST_CHECK_MESSAGE(msg.find("my_node") != std::string::npos, msg);
  }
}

BOOST_AUTO_TEST_CASE(equality_may_answer_instead_of_failing_on_incompatible_shapes) {
  for (const char* op : {"Equal", "NotEqual"}) {
    KernelRunner runner(op);
    runner.Attr("incompatible_shape_error", false)
        .Input(RandomTensor<int32_t>({2, 3}, 1))
        .Input(RandomTensor<int32_t>({4}, 2));
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_BOOL, {}, {std::string(op) == "NotEqual" ? 1.0 : 0.0}));
  }
}

BOOST_AUTO_TEST_CASE(integer_div_truncates_toward_zero) {
  auto out = RunKernel("Div", {Tensor::FromVector<int32_t>({-7, 7, -7, 7, 0}),
                               Tensor::FromVector<int32_t>({2, -2, -2, 2, -5})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT32, {5}, {-3, -3, 3, 3, 0}));

  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto wrap = RunKernel("Div", {Tensor::Scalar<int64_t>(kMin), Tensor::Scalar<int64_t>(-1)});
  AF_REQUIRE_OK(wrap.status());
  BOOST_CHECK_EQUAL((*wrap)[0].scalar<int64_t>(), kMin);  // wraps instead of trapping
}

BOOST_AUTO_TEST_CASE(integer_division_by_zero_is_an_error) {
  KernelRunner runner("Div", "divide");
  runner.Input(Tensor::FromVector<int64_t>({1, 2, 3}))
      .Input(Tensor::FromVector<int64_t>({1, 0, 1}));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(out.status().message().find("Integer division by zero") != std::string::npos,
                      out.status().ToString());
}

BOOST_AUTO_TEST_CASE(float_division_by_zero_gives_infinities) {
  auto out = RunKernel("RealDiv", {Tensor::FromVector<float>({1, -1, 0}), Tensor::Scalar(0.f)});
  AF_REQUIRE_OK(out.status());
  const float* z = (*out)[0].data<float>();
  BOOST_CHECK(std::isinf(z[0]) && z[0] > 0);
  BOOST_CHECK(std::isinf(z[1]) && z[1] < 0);
  BOOST_CHECK(std::isnan(z[2]));
}

BOOST_AUTO_TEST_CASE(maximum_and_minimum_propagate_nan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::FromVector<float>({nan, 1.f, nan});
  Tensor y = Tensor::FromVector<float>({2.f, nan, nan});
  for (const char* op : {"Maximum", "Minimum"}) {
    auto out = RunKernel(op, {x, y});
    AF_REQUIRE_OK(out.status());
    for (int i = 0; i < 3; ++i) BOOST_CHECK(std::isnan((*out)[0].data<float>()[i]));
  }
}

BOOST_AUTO_TEST_CASE(integer_overflow_wraps) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  auto out = RunKernel("Add", {Tensor::Scalar<int32_t>(kMax), Tensor::Scalar<int32_t>(1)});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].scalar<int32_t>(), std::numeric_limits<int32_t>::min());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
