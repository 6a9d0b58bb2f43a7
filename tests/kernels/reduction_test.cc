// Sum, Mean, Prod, Max, Min against a double-precision reference over many
// axis patterns (negative, scalar and vector axes, keep_dims, size-1 and
// empty dims), the empty-reduction identities, accuracy of large float
// sums, integer wrap-around, NaN propagation and the error paths.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

struct Reference {
  TensorShape shape;
  std::vector<double> sum, prod, max, min, mean;
};

Reference ReferenceReduce(const Tensor& x, const std::vector<int64_t>& axes, bool keep_dims) {
  const int rank = x.dims();
  std::set<int> reduced;
  for (int64_t a : axes) reduced.insert(static_cast<int>(a < 0 ? a + rank : a));
  Reference r;
  std::vector<int64_t> out_dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced.count(d)) out_dims.push_back(x.dim_size(d));
    else if (keep_dims) out_dims.push_back(1);
  }
  r.shape = TensorShape(out_dims);
  const int64_t n = r.shape.num_elements();
  const double inf = std::numeric_limits<double>::infinity();
  r.sum.assign(n, 0);
  r.prod.assign(n, 1);
  r.max.assign(n, -inf);
  r.min.assign(n, inf);
  std::vector<int64_t> count(n, 0);
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    int64_t rem = i, out = 0, stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t idx = rem % x.dim_size(d);
      rem /= x.dim_size(d);
      if (reduced.count(d)) continue;
      out += idx * stride;
      stride *= x.dim_size(d);
    }
    const double v = ValueAsDouble(x, i);
    r.sum[out] += v;
    r.prod[out] *= v;
    r.max[out] = std::max(r.max[out], v);
    r.min[out] = std::min(r.min[out], v);
    ++count[out];
  }
  for (int64_t o = 0; o < n; ++o) r.mean.push_back(r.sum[o] / count[o]);
  return r;
}

struct Case {
  TensorShape shape;
  std::vector<int64_t> axes;
  bool scalar_axis = false;  // pass axes[0] as a scalar
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{2, 3, 4}, {1}},           {{2, 3, 4}, {0}},
      {{2, 3, 4}, {2}},           {{2, 3, 4}, {0, 2}},
      {{2, 3, 4}, {-1}, true},    {{2, 3, 4}, {0, 1, 2}},
      {{2, 3, 4}, {}},            {{2, 3, 4}, {1, -3}},
      {{}, {}},                   {{5}, {0}},
      {{5}, {-1}, true},          {{3, 1, 4}, {1}},
      {{3, 1, 4}, {0, 1}},        {{1, 1}, {0, 1}},
      {{0, 4}, {0}},              {{0, 4}, {1}},
      {{4, 0, 3}, {1}},           {{7, 300, 5}, {1}},
      {{7, 300, 5}, {0, 2}},      {{7, 300, 5}, {1, 2}},
      {{2, 3, 4, 5}, {1, 3}},     {{2, 3, 4, 5}, {0, 2}},
      {{600, 70}, {0}},           {{70, 600}, {1}},
      {{100000}, {0}},            {{3, 40000}, {0}},
      {{2, 2, 2, 2, 2, 2, 2}, {0, 2, 4, 6}},
  };
  return cases;
}

template <typename T>
StatusOr<std::vector<Tensor>> Reduce(const std::string& op, const Tensor& x, const Case& c,
                                     bool keep_dims, bool int64_axes) {
  KernelRunner runner(op);
  runner.Attr("keep_dims", keep_dims).Input(x);
  if (int64_axes) {
    runner.Input(c.scalar_axis ? Tensor::Scalar<int64_t>(c.axes[0])
                               : Tensor::FromVector<int64_t>(c.axes));
  } else {
    std::vector<int32_t> axes(c.axes.begin(), c.axes.end());
    runner.Input(c.scalar_axis ? Tensor::Scalar<int32_t>(axes[0]) : Tensor::FromVector(axes));
  }
  return runner.Run();
}

template <typename T>
void CheckReductions() {
  constexpr DataType dt = DataTypeToEnum<T>::value;
  uint32_t seed = 40;
  bool int64_axes = false;
  for (const Case& c : Cases()) {
    for (bool keep_dims : {false, true}) {
      int64_axes = !int64_axes;
      // Integers small enough that products stay exact; reals near 1 so
      // products neither overflow nor vanish.
      const Tensor x = std::is_integral_v<T> ? RandomTensor<T>(c.shape, ++seed, -3, 3)
                                             : RandomTensor<T>(c.shape, ++seed, 0.5, 1.5);
      Reference ref = ReferenceReduce(x, c.axes, keep_dims);
      if constexpr (std::is_integral_v<T>) {
        // The empty maximum of an integer type is its lowest value, not -inf.
        for (double& v : ref.max)
          if (std::isinf(v)) v = static_cast<double>(std::numeric_limits<T>::lowest());
        for (double& v : ref.min)
          if (std::isinf(v)) v = static_cast<double>(std::numeric_limits<T>::max());
      }
      const int64_t count = ref.shape.num_elements() == 0
                                ? 0
                                : std::max<int64_t>(1, x.NumElements() / ref.shape.num_elements());
      const bool small = count <= 16;
      for (const std::string op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
        if (op == "Prod" && !small) continue;  // products of many terms over/underflow
        if (op == "Mean" && std::is_integral_v<T>) continue;  // checked below
        BOOST_TEST_CONTEXT(op << "<" << DataTypeString(dt) << "> " << c.shape.DebugString()
                              << " axes " << c.axes.size() << (keep_dims ? " keep_dims" : "")) {
          auto out = Reduce<T>(op, x, c, keep_dims, int64_axes);
          AF_REQUIRE_OK(out.status());
          const std::vector<double>& want = op == "Sum"    ? ref.sum
                                            : op == "Mean" ? ref.mean
                                            : op == "Prod" ? ref.prod
                                            : op == "Max"  ? ref.max
                                                           : ref.min;
          // Pairwise float sums err by at most ~eps * log2(n) * sum |x|.
          const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-14;
          const double atol = std::is_integral_v<T> ? 0 : eps * 2 * (count + 1);
          const double rtol = std::is_integral_v<T> ? 0 : eps * 4;
          AF_EXPECT_OK(CheckTensor((*out)[0], dt, ref.shape, want, rtol,
                                   op == "Mean" ? rtol : atol));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE(reduction)

BOOST_AUTO_TEST_CASE(float_reductions) { CheckReductions<float>(); }
BOOST_AUTO_TEST_CASE(double_reductions) { CheckReductions<double>(); }
BOOST_AUTO_TEST_CASE(int32_reductions) { CheckReductions<int32_t>(); }
BOOST_AUTO_TEST_CASE(int64_reductions) { CheckReductions<int64_t>(); }

StatusOr<std::vector<Tensor>> ReduceAll(const std::string& op, const Tensor& x,
                                        std::vector<int32_t> axes) {
  return RunKernel(op, {x, Tensor::FromVector(axes)});
}

BOOST_AUTO_TEST_CASE(large_float_sums_stay_accurate) {
  // 2^22 copies of 0.1f: a running float sum drifts by percents, the
  // pairwise sum stays within a few float ulps.
  constexpr int64_t n = int64_t{1} << 22;
  Tensor x(DT_FLOAT, TensorShape{n});
  std::fill(x.data<float>(), x.data<float>() + n, 0.1f);
  const double want = static_cast<double>(0.1f) * n;
  auto all = ReduceAll("Sum", x, {0});
  AF_REQUIRE_OK(all.status());
  BOOST_CHECK_CLOSE((*all)[0].scalar<float>(), want, 1e-4);
  // The same as a column reduction: [2^20, 4] over axis 0.
  Tensor cols;
  AF_REQUIRE_OK(x.Reshaped(TensorShape{n / 4, 4}, &cols));
  auto by_col = ReduceAll("Sum", cols, {0});
  AF_REQUIRE_OK(by_col.status());
  for (int c = 0; c < 4; ++c) BOOST_CHECK_CLOSE((*by_col)[0].data<float>()[c], want / 4, 1e-4);
  auto mean = ReduceAll("Mean", x, {0});
  AF_REQUIRE_OK(mean.status());
  BOOST_CHECK_CLOSE((*mean)[0].scalar<float>(), 0.1, 1e-4);
}

BOOST_AUTO_TEST_CASE(empty_reductions_give_the_identity) {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x(DT_FLOAT, TensorShape{0, 3});
  struct Want {
    std::string op;
    double value;
  };
  for (const Want& w : std::vector<Want>{
           {"Sum", 0}, {"Prod", 1}, {"Max", -inf}, {"Min", inf}, {"Mean", std::nan("")}}) {
    BOOST_TEST_CONTEXT(w.op) {
      auto out = ReduceAll(w.op, x, {0});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {3}, {w.value, w.value, w.value}));
    }
  }
  const Tensor xi(DT_INT32, TensorShape{2, 0});
  auto max = ReduceAll("Max", xi, {1});
  auto min = ReduceAll("Min", xi, {1});
  auto mean = ReduceAll("Mean", xi, {1});
  AF_REQUIRE_OK(max.status());
  AF_REQUIRE_OK(min.status());
  AF_REQUIRE_OK(mean.status());
  BOOST_CHECK_EQUAL((*max)[0].data<int32_t>()[0], std::numeric_limits<int32_t>::min());
  BOOST_CHECK_EQUAL((*min)[0].data<int32_t>()[1], std::numeric_limits<int32_t>::max());
  BOOST_CHECK_EQUAL((*mean)[0].data<int32_t>()[0], 0);
}

BOOST_AUTO_TEST_CASE(integer_mean_divides_like_integers) {
  auto out = ReduceAll("Mean", Tensor::FromVector<int32_t>({1, 2, -7, 0}, {2, 2}), {1});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT32, {2}, {1, -3}));
}

BOOST_AUTO_TEST_CASE(integer_sums_and_products_wrap) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  auto sum = ReduceAll("Sum", Tensor::FromVector<int32_t>({kMax, 1}), {0});
  auto prod = ReduceAll("Prod", Tensor::FromVector<int32_t>({65536, 65536, 3}), {0});
  AF_REQUIRE_OK(sum.status());
  AF_REQUIRE_OK(prod.status());
  BOOST_CHECK_EQUAL((*sum)[0].scalar<int32_t>(), std::numeric_limits<int32_t>::min());
  BOOST_CHECK_EQUAL((*prod)[0].scalar<int32_t>(), 0);
}

BOOST_AUTO_TEST_CASE(max_and_min_propagate_nan) {
  const float nan = std::nanf("");
  const Tensor x = Tensor::FromVector<float>({1, nan, 3, 4, 5, 6}, {2, 3});
  auto max = ReduceAll("Max", x, {1});
  auto min = ReduceAll("Min", x, {0});
  AF_REQUIRE_OK(max.status());
  AF_REQUIRE_OK(min.status());
  AF_EXPECT_OK(CheckTensor((*max)[0], DT_FLOAT, {2}, {std::nan(""), 6}));
  AF_EXPECT_OK(CheckTensor((*min)[0], DT_FLOAT, {3}, {1, std::nan(""), 3}));
}

BOOST_AUTO_TEST_CASE(reducing_only_size_one_dims_shares_the_buffer) {
  const Tensor x = RandomTensor<float>({3, 1, 4}, 3);
  auto out = ReduceAll("Sum", x, {1});
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK((*out)[0].SharesBufferWith(x));
  BOOST_CHECK_EQUAL((*out)[0].shape(), TensorShape({3, 4}));
}

BOOST_AUTO_TEST_CASE(bad_axes_are_errors) {
  const Tensor x = RandomTensor<float>({2, 3}, 1);
  ExpectError(ReduceAll("Sum", x, {2}), Code::INVALID_ARGUMENT, "Sum",
              {"Invalid reduction dimension (2) for input with 2 dimension(s)"});
  ExpectError(ReduceAll("Max", x, {-3}), Code::INVALID_ARGUMENT, "Max",
              {"Invalid reduction dimension (-3)"});
  ExpectError(ReduceAll("Mean", x, {1, -1}), Code::INVALID_ARGUMENT, "Mean",
              {"Axes contains duplicate dimension: 1"});
  ExpectError(RunKernel("Prod", {x, Tensor::FromVector<int32_t>({0, 1}, {1, 2})}),
              Code::INVALID_ARGUMENT, "Prod", {"must be a scalar or vector", "[1,2]"});
  ExpectError(ReduceAll("Min", Tensor::Scalar<float>(1), {0}), Code::INVALID_ARGUMENT, "Min",
              {"for input with 0 dimension(s)"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
