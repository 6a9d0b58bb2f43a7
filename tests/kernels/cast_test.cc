// Cast between the numeric types, bool and the 16-bit floats: value
// preservation, float -> int truncation and its out-of-range rule, integer
// wrap-around, bool in both directions, Truncate, and pass-through.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

template <typename Dst, typename Src>
StatusOr<std::vector<Tensor>> Cast(const std::vector<Src>& values, bool truncate = false) {
  KernelRunner runner("Cast");
  runner.Attr("DstT", DataTypeToEnum<Dst>::value).Attr("Truncate", truncate);
  runner.Input(Tensor::FromVector<Src>(values));
  return runner.Run();
}

template <typename Dst, typename Src>
std::vector<Dst> CastValues(const std::vector<Src>& values, bool truncate = false) {
  auto out = Cast<Dst>(values, truncate);
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  const Tensor& t = (*out)[0];
  BOOST_REQUIRE_EQUAL(t.dtype(), DataTypeToEnum<Dst>::value);
  BOOST_REQUIRE_EQUAL(t.NumElements(), static_cast<int64_t>(values.size()));
  return std::vector<Dst>(t.data<Dst>(), t.data<Dst>() + t.NumElements());
}

// Every value of `Src` in `values` converts to `Dst` and back unchanged
// (values chosen representable in both).
template <typename Src, typename Dst>
void CheckRoundTrip(const std::vector<double>& values) {
  std::vector<Src> src;
  for (double v : values) src.push_back(static_cast<Src>(v));
  const std::vector<Dst> there = CastValues<Dst>(src);
  for (size_t i = 0; i < values.size(); ++i)
    BOOST_CHECK_EQUAL(static_cast<double>(there[i]), values[i]);
  const std::vector<Src> back = CastValues<Src>(there);
  for (size_t i = 0; i < values.size(); ++i) BOOST_CHECK(back[i] == src[i]);
}

BOOST_AUTO_TEST_SUITE(cast)

BOOST_AUTO_TEST_CASE(exact_values_round_trip_between_numeric_types) {
  const std::vector<double> small = {0, 1, -1, 7, -100, 127, -128};
  CheckRoundTrip<float, double>(small);
  CheckRoundTrip<double, int32_t>(small);
  CheckRoundTrip<float, int64_t>(small);
  CheckRoundTrip<int32_t, int64_t>({0, 1, -1, 2147483647.0, -2147483648.0});
  CheckRoundTrip<int64_t, int8_t>(small);
  CheckRoundTrip<int32_t, int16_t>({0, -1, 32767, -32768});
  CheckRoundTrip<int32_t, uint8_t>({0, 1, 200, 255});
  CheckRoundTrip<double, uint16_t>({0, 65535});
  CheckRoundTrip<float, uint32_t>({0, 4000000000.0});
  CheckRoundTrip<double, uint64_t>({0, 1e19});
}

BOOST_AUTO_TEST_CASE(random_floats_to_double_and_back) {
  Tensor x = RandomTensor<float>({1000}, 5, -1e6, 1e6);
  KernelRunner up("Cast");
  up.Attr("DstT", DT_DOUBLE).Input(x);
  auto d = up.Run();
  AF_REQUIRE_OK(d.status());
  std::vector<double> want;
  for (int64_t i = 0; i < x.NumElements(); ++i) want.push_back(x.data<float>()[i]);
  AF_EXPECT_OK(CheckTensor((*d)[0], DT_DOUBLE, {1000}, want));
}

BOOST_AUTO_TEST_CASE(float_to_int_truncates_toward_zero) {
  const std::vector<float> x = {2.9f, -2.9f, 0.5f, -0.5f, 1e9f, -1e9f};
  const std::vector<int32_t> want = {2, -2, 0, 0, 1000000000, -1000000000};
  BOOST_CHECK(CastValues<int32_t>(x) == want);
  const std::vector<int64_t> want64 = {2, -2, 0, 0, 1000000000, -1000000000};
  BOOST_CHECK(CastValues<int64_t>(std::vector<double>(x.begin(), x.end())) == want64);
}

BOOST_AUTO_TEST_CASE(out_of_range_and_nan_give_the_most_negative_integer) {
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {nan, inf, -inf, 3e9f, -3e9f};
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  BOOST_CHECK(CastValues<int32_t>(x) == std::vector<int32_t>(5, kMin32));
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const std::vector<int64_t> want64 = {kMin64, kMin64, kMin64, 3000000000, -3000000000};
  BOOST_CHECK(CastValues<int64_t>(x) == want64);
  // Narrow targets keep the low bits of the 32-bit conversion.
  const std::vector<uint8_t> bytes = CastValues<uint8_t>(std::vector<float>{300.0f, -1.0f, 255.9f});
  BOOST_CHECK(bytes == (std::vector<uint8_t>{44, 255, 255}));
  const std::vector<int8_t> sbytes = CastValues<int8_t>(std::vector<double>{200.0, -129.0, nan});
  BOOST_CHECK(sbytes == (std::vector<int8_t>{-56, 127, 0}));
}

BOOST_AUTO_TEST_CASE(integers_wrap_when_narrowed) {
  const std::vector<int64_t> x = {4294967296LL + 5, -1, 2147483648LL, 300};
  BOOST_CHECK(CastValues<int32_t>(x) ==
              (std::vector<int32_t>{5, -1, std::numeric_limits<int32_t>::min(), 300}));
  BOOST_CHECK(CastValues<uint8_t>(x) == (std::vector<uint8_t>{5, 255, 0, 44}));
  BOOST_CHECK(CastValues<uint32_t>(std::vector<int32_t>{-1}) ==
              std::vector<uint32_t>{4294967295u});
}

BOOST_AUTO_TEST_CASE(bool_in_both_directions) {
  const std::vector<float> x = {0.0f, -0.0f, 0.1f, -3.0f, std::nanf("")};
  const std::vector<bool> b = CastValues<bool>(x);
  BOOST_CHECK(b == (std::vector<bool>{false, false, true, true, true}));
  BOOST_CHECK(CastValues<bool>(std::vector<int64_t>{0, 5, -1}) ==
              (std::vector<bool>{false, true, true}));
  BOOST_CHECK(CastValues<int32_t>(std::vector<bool>{true, false}) ==
              (std::vector<int32_t>{1, 0}));
  BOOST_CHECK(CastValues<double>(std::vector<bool>{true, false}) ==
              (std::vector<double>{1.0, 0.0}));
}

BOOST_AUTO_TEST_CASE(double_to_float_rounds_unless_truncating) {
  // 1 + 2^-23 + 2^-24 + 2^-30 lies above the midpoint between two floats.
  const double x = 1.0 + std::ldexp(1.0, -23) + std::ldexp(1.0, -24) + std::ldexp(1.0, -30);
  const float nearest = CastValues<float>(std::vector<double>{x, -x})[0];
  BOOST_CHECK_EQUAL(nearest, 1.0f + std::ldexp(1.0f, -22));
  const std::vector<float> cut = CastValues<float>(std::vector<double>{x, -x}, true);
  BOOST_CHECK_EQUAL(cut[0], 1.0f + std::ldexp(1.0f, -23));
  BOOST_CHECK_EQUAL(cut[1], -(1.0f + std::ldexp(1.0f, -23)));
  // NaN and infinities pass through either way.
  const std::vector<float> special = CastValues<float>(
      std::vector<double>{std::nan(""), std::numeric_limits<double>::infinity()}, true);
  BOOST_CHECK(std::isnan(special[0]));
  BOOST_CHECK(std::isinf(special[1]));
}

BOOST_AUTO_TEST_CASE(half_and_bfloat16) {
  // Exactly representable values survive float -> half/bfloat16 -> float.
  const std::vector<float> x = {0.0f, 1.0f, -2.5f, 1024.0f, 0.125f};
  BOOST_CHECK(CastValues<float>(CastValues<half>(x)) == x);
  BOOST_CHECK(CastValues<float>(CastValues<bfloat16>(x)) == x);
  // 1 + 2^-7 + 2^-8 + 2^-10 lies above the midpoint between the bfloat16
  // values 1 + 2^-7 and 1 + 2^-6: nearest-even rounds up, truncation down.
  const float y = 1.0f + std::ldexp(1.0f, -7) + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -10);
  BOOST_CHECK_EQUAL(CastValues<float>(CastValues<bfloat16>(std::vector<float>{y}))[0],
                    1.0f + std::ldexp(1.0f, -6));
  BOOST_CHECK_EQUAL(CastValues<float>(CastValues<bfloat16>(std::vector<float>{y}, true))[0],
                    1.0f + std::ldexp(1.0f, -7));
  // Half to integer goes through its float value.
  BOOST_CHECK(CastValues<int32_t>(CastValues<half>(std::vector<float>{-7.75f, 65504.0f})) ==
              (std::vector<int32_t>{-7, 65504}));
  BOOST_CHECK(CastValues<bool>(CastValues<half>(std::vector<float>{0.0f, 0.001f})) ==
              (std::vector<bool>{false, true}));
}

BOOST_AUTO_TEST_CASE(same_type_passes_the_buffer_through) {
  Tensor x = RandomTensor<int64_t>({3, 3}, 1, -5, 5);
  KernelRunner runner("Cast");
  runner.Attr("DstT", DT_INT64).Input(x);
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK((*out)[0].SharesBufferWith(x));
}

BOOST_AUTO_TEST_CASE(empty_and_shaped_tensors) {
  KernelRunner runner("Cast");
  runner.Attr("DstT", DT_FLOAT).Input(Tensor(DT_INT32, TensorShape{0, 3}));
  auto out = runner.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL((*out)[0].shape(), TensorShape({0, 3}));
  BOOST_CHECK_EQUAL((*out)[0].dtype(), DT_FLOAT);
}

BOOST_AUTO_TEST_CASE(unsupported_pairs_have_no_kernel) {
  KernelRunner runner("Cast");
  runner.Attr("DstT", DT_STRING).Input(Tensor::FromVector<float>({1.0f}));
  BOOST_CHECK(!runner.Run().ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
