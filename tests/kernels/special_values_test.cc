// Special values (±inf, NaN, ±0, denormals, arguments past the range of the
// vectorized approximations) through every floating-point unary kernel, in
// float and double, against TensorFlow's definition computed in long double.
//
// The kernels run Eigen's vectorized functions, whose edge behaviour depends
// on the vector width the build picked (SSE, AVX2, AVX-512). Each input is
// repeated to fill several vector lanes and a scalar tail, so every path of
// one build is exercised; building with AF_MARCH=x86-64-v2, x86-64-v3 and
// native exercises the others.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

using Ref = std::function<long double(long double)>;

struct UnaryCase {
  std::string op;
  Ref ref;
  // Relative tolerance in units of the type's epsilon.
  double ulps = 4;
};

long double Sigmoid(long double x) { return 1.0L / (1.0L + std::exp(-x)); }

const std::vector<UnaryCase>& Cases() {
  static const std::vector<UnaryCase> cases = {
      {"Neg", [](long double x) { return -x; }, 0},
      {"Abs", [](long double x) { return std::fabs(x); }, 0},
      {"Square", [](long double x) { return x * x; }, 1},
      {"Sign",
       [](long double x) -> long double {
         if (std::isnan(x)) return x;
         return x > 0 ? 1 : (x < 0 ? -1 : 0);
       },
       0},
      {"Sqrt", [](long double x) { return std::sqrt(x); }},
      {"Rsqrt", [](long double x) { return 1.0L / std::sqrt(x); }},
      {"Reciprocal", [](long double x) { return 1.0L / x; }, 1},
      {"Exp", [](long double x) { return std::exp(x); }},
      {"Log", [](long double x) { return std::log(x); }},
      {"Log1p", [](long double x) { return std::log1p(x); }},
      {"Tanh", [](long double x) { return std::tanh(x); }, 8},
      {"Sigmoid", Sigmoid, 8},
      {"Sin", [](long double x) { return std::sin(x); }, 8},
      {"Cos", [](long double x) { return std::cos(x); }, 8},
      {"Erf", [](long double x) { return std::erf(x); }, 8},
      {"Floor", [](long double x) { return std::floor(x); }, 0},
      {"Ceil", [](long double x) { return std::ceil(x); }, 0},
      {"Rint", [](long double x) { return std::nearbyint(x); }, 0},
      {"Round", [](long double x) { return std::nearbyint(x); }, 0},
      // TensorFlow's max(x, 0) keeps -0 (and NaN).
      {"Relu", [](long double x) { return x < 0 ? 0.0L : x; }, 0},
      {"Relu6", [](long double x) { return x < 0 ? 0.0L : (x > 6 ? 6.0L : x); }, 0},
      {"Elu", [](long double x) { return x < 0 ? std::expm1(x) : x; }},
      {"Softplus", [](long double x) { return x > 0 ? x + std::log1p(std::exp(-x))
                                                    : std::log1p(std::exp(x)); },
       8},
  };
  return cases;
}

template <typename T>
std::vector<T> SpecialInputs() {
  using L = std::numeric_limits<T>;
  const T big_exp = std::is_same_v<T, float> ? T(88.5) : T(709.5);   // near the overflow
  const T past_exp = std::is_same_v<T, float> ? T(89.5) : T(710.5);  // exp overflows
  const T deep = std::is_same_v<T, float> ? T(120) : T(760);         // exp underflows to 0
  const T denormal_exp = std::is_same_v<T, float> ? T(-95) : T(-730);  // exp is denormal
  return {L::quiet_NaN(),  L::infinity(),  -L::infinity(), T(0),       T(-0.0),
          T(1),            T(-1),          T(0.5),         T(-2.5),    T(3.5),
          L::denorm_min(), -L::denorm_min(), L::min() / 4, L::min(),  L::max(),
          L::lowest(),     big_exp,        -big_exp,       past_exp,  -past_exp,
          deep,            -deep,          denormal_exp,   T(1e10),   T(-1e10),
          T(20),           T(-20),         T(6),           T(7.25),   T(-0.75)};
}

// Compares one result with its reference: NaN with NaN, infinities and zeros
// exactly (with their sign), everything else within `ulps` relative epsilons
// (and a few denormal steps, where relative precision runs out).
template <typename T>
bool Agrees(T got, long double want_wide, double ulps, std::string* why) {
  const T want = static_cast<T>(want_wide);
  std::ostringstream os;
  os.precision(std::numeric_limits<T>::max_digits10);
  os << "got " << got << ", want " << want;
  *why = os.str();
  if (std::isnan(want)) return std::isnan(got);
  if (std::isnan(got)) return false;
  if (std::isinf(want) || want == 0) return got == want && std::signbit(got) == std::signbit(want);
  const long double tol =
      ulps * std::numeric_limits<T>::epsilon() * std::fabs(want_wide) +
      4.0L * std::numeric_limits<T>::denorm_min() * (ulps > 0 ? 1 : 0);
  return std::fabs(static_cast<long double>(got) - want_wide) <= tol;
}

template <typename T>
void CheckAllOps() {
  const std::vector<T> inputs = SpecialInputs<T>();
  // Each input repeated 37 times: whole vectors of it and a scalar tail.
  constexpr int kRepeat = 37;
  std::vector<T> x;
  for (T v : inputs)
    for (int r = 0; r < kRepeat; ++r) x.push_back(v);
  for (const UnaryCase& c : Cases()) {
    BOOST_TEST_CONTEXT(c.op << " " << DataTypeString(DataTypeToEnum<T>::value)) {
      auto out = RunKernel(c.op, {Tensor::FromVector<T>(x)});
      AF_REQUIRE_OK(out.status());
      const T* z = (*out)[0].template data<T>();
      for (size_t i = 0; i < inputs.size(); ++i) {
        const long double want = c.ref(static_cast<long double>(inputs[i]));
        for (int r = 0; r < kRepeat; ++r) {
          std::string why;
          if (!Agrees<T>(z[i * kRepeat + r], want, c.ulps, &why)) {
            BOOST_ERROR(c.op << "(" << inputs[i] << ") at lane " << r << ": " << why);
            break;
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE(special_values)

BOOST_AUTO_TEST_CASE(every_float_unary_kernel) { CheckAllOps<float>(); }
BOOST_AUTO_TEST_CASE(every_double_unary_kernel) { CheckAllOps<double>(); }

// Softmax of a row with -inf logits (a mask) gives exactly 0 there.
BOOST_AUTO_TEST_CASE(softmax_of_masked_logits_is_exactly_zero) {
  for (int width : {3, 17}) {
    std::vector<float> f(width, -std::numeric_limits<float>::infinity());
    std::vector<double> d(width, -std::numeric_limits<double>::infinity());
    f[1] = 0.5f;
    d[1] = 0.5;
    f[0] = -120.f;  // exp(-120.5) is 0 in float
    d[0] = -800.0;  // and in double
    auto fo = RunKernel("Softmax", {Tensor::FromVector<float>(f)});
    auto dout = RunKernel("Softmax", {Tensor::FromVector<double>(d)});
    AF_REQUIRE_OK(fo.status());
    AF_REQUIRE_OK(dout.status());
    for (int i = 0; i < width; ++i) {
      BOOST_TEST((*fo)[0].data<float>()[i] == (i == 1 ? 1.0f : 0.0f), "float lane " << i);
      BOOST_TEST((*dout)[0].data<double>()[i] == (i == 1 ? 1.0 : 0.0), "double lane " << i);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
