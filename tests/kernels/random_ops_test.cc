// Random ops: the Philox generator against its published answers, sample
// statistics, and TensorFlow's seeding rules.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "kernels/random/philox.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

struct Moments {
  double mean = 0, variance = 0, min = 0, max = 0;
};

Moments MomentsOf(const Tensor& t) {
  Moments m;
  const int64_t n = t.NumElements();
  m.min = m.max = ValueAsDouble(t, 0);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = ValueAsDouble(t, i);
    sum += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean = sum / n;
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq += (ValueAsDouble(t, i) - m.mean) * (ValueAsDouble(t, i) - m.mean);
  m.variance = sq / (n - 1);
  return m;
}

double HalfValue(const Tensor& t, int64_t i) {
  if (t.dtype() == DT_HALF) return HalfToFloat(t.data<half>()[i]);
  if (t.dtype() == DT_BFLOAT16) return BFloat16ToFloat(t.data<bfloat16>()[i]);
  return ValueAsDouble(t, i);
}

// A kernel of `op` with seeds and dtype set, producing `shape`.
struct RandomKernel {
  RandomKernel(const std::string& op, DataType dtype, int64_t seed, int64_t seed2,
               std::vector<int64_t> shape)
      : runner(op), shape_(std::move(shape)) {
    runner.Attr("seed", seed).Attr("seed2", seed2).Attr("dtype", dtype);
    runner.Input(Tensor::FromVector<int64_t>(shape_));
  }
  Tensor Next() {
    auto out = runner.Run({Tensor::FromVector<int64_t>(shape_)});
    BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
    return (*out)[0];
  }
  KernelRunner runner;
  std::vector<int64_t> shape_;
};

bool SameValues(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.TotalBytes() == b.TotalBytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

constexpr int64_t kSamples = 200000;

BOOST_AUTO_TEST_SUITE(random_ops)

BOOST_AUTO_TEST_CASE(philox_matches_the_published_known_answers) {
  using random::Philox4x32_10;
  BOOST_TEST((Philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
              random::PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  BOOST_TEST((Philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                            {0xffffffffu, 0xffffffffu}) ==
              random::PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  BOOST_TEST((Philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                            {0xa4093822u, 0x299f31d0u}) ==
              random::PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

BOOST_AUTO_TEST_CASE(uniform_floats_are_uniform_in_unit_interval) {
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    BOOST_TEST_CONTEXT(DataTypeString(dt)) {
      RandomKernel k("RandomUniform", dt, 1, 2, {kSamples});
      const Tensor t = k.Next();
      BOOST_TEST(t.dtype() == dt);
      const Moments m = MomentsOf(t);
      BOOST_TEST(m.min >= 0.0);
      BOOST_TEST(m.max < 1.0);
      BOOST_TEST(std::fabs(m.mean - 0.5) < 0.004);
      BOOST_TEST(std::fabs(m.variance - 1.0 / 12) < 0.002);
      // Ten equal bins each get about a tenth.
      std::vector<int64_t> bins(10, 0);
      for (int64_t i = 0; i < kSamples; ++i) bins[static_cast<int>(ValueAsDouble(t, i) * 10)]++;
      for (int64_t count : bins) BOOST_TEST(std::abs(count - kSamples / 10) < kSamples / 200);
    }
  }
}

BOOST_AUTO_TEST_CASE(sixteen_bit_uniforms_stay_below_one) {
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    RandomKernel k("RandomUniform", dt, 3, 4, {20000});
    const Tensor t = k.Next();
    double sum = 0, lo = 1, hi = 0;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      const double x = HalfValue(t, i);
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    BOOST_TEST(lo >= 0.0);
    BOOST_TEST(hi < 1.0);
    BOOST_TEST(std::fabs(sum / t.NumElements() - 0.5) < 0.02);
  }
}

BOOST_AUTO_TEST_CASE(standard_normal_has_mean_zero_and_variance_one) {
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    BOOST_TEST_CONTEXT(DataTypeString(dt)) {
      RandomKernel k("RandomStandardNormal", dt, 5, 6, {kSamples});
      const Tensor t = k.Next();
      const Moments m = MomentsOf(t);
      BOOST_TEST(std::fabs(m.mean) < 0.012);
      BOOST_TEST(std::fabs(m.variance - 1.0) < 0.02);
      int64_t within_one = 0;
      for (int64_t i = 0; i < kSamples; ++i) within_one += std::fabs(ValueAsDouble(t, i)) < 1.0;
      BOOST_TEST(std::fabs(static_cast<double>(within_one) / kSamples - 0.682689) < 0.006);
      BOOST_TEST(m.max > 3.5);  // tails are there
      BOOST_TEST(m.min < -3.5);
    }
  }
}

BOOST_AUTO_TEST_CASE(truncated_normal_stays_within_two_stddev) {
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    BOOST_TEST_CONTEXT(DataTypeString(dt)) {
      RandomKernel k("TruncatedNormal", dt, 7, 8, {kSamples});
      const Tensor t = k.Next();
      const Moments m = MomentsOf(t);
      BOOST_TEST(m.min > -2.0);
      BOOST_TEST(m.max < 2.0);
      BOOST_TEST(m.max > 1.95);
      BOOST_TEST(std::fabs(m.mean) < 0.01);
      // Variance of N(0, 1) truncated to (-2, 2): 1 - 4 phi(2) / (2 Phi(2) - 1).
      BOOST_TEST(std::fabs(m.variance - 0.773741) < 0.01);
    }
  }
}

BOOST_AUTO_TEST_CASE(uniform_int_covers_its_range_evenly) {
  KernelRunner r("RandomUniformInt");
  r.Attr("seed", int64_t{9}).Attr("seed2", int64_t{10});
  r.Input(Tensor::FromVector<int32_t>({100, 1000}))
      .Input(Tensor::Scalar<int32_t>(-3))
      .Input(Tensor::Scalar<int32_t>(7));
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  const Tensor& t = (*out)[0];
  BOOST_TEST(t.dtype() == DT_INT32);
  BOOST_TEST(t.shape() == (TensorShape{100, 1000}));
  std::map<int32_t, int64_t> counts;
  for (int64_t i = 0; i < t.NumElements(); ++i) counts[t.data<int32_t>()[i]]++;
  BOOST_TEST(counts.size() == 10u);
  BOOST_TEST(counts.begin()->first == -3);
  BOOST_TEST(counts.rbegin()->first == 6);
  for (const auto& [value, count] : counts) BOOST_TEST(std::abs(count - 10000) < 500);

  KernelRunner wide("RandomUniformInt");
  wide.Attr("seed", int64_t{1}).Attr("seed2", int64_t{1});
  wide.Input(Tensor::FromVector<int64_t>({1000}))
      .Input(Tensor::Scalar<int64_t>(std::numeric_limits<int64_t>::min()))
      .Input(Tensor::Scalar<int64_t>(std::numeric_limits<int64_t>::max()));
  out = wide.Run();
  AF_REQUIRE_OK(out.status());
  int negatives = 0;
  for (int64_t i = 0; i < 1000; ++i) negatives += (*out)[0].data<int64_t>()[i] < 0;
  BOOST_TEST(std::abs(negatives - 500) < 100);
}

BOOST_AUTO_TEST_CASE(uniform_int_rejects_bad_bounds) {
  auto run = [](Tensor lo, Tensor hi) {
    KernelRunner r("RandomUniformInt", "rand_int");
    r.Input(Tensor::FromVector<int32_t>({4})).Input(std::move(lo)).Input(std::move(hi));
    return r.Run().status();
  };
  Status s = run(Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(s.message().find("Need minval < maxval: 5 >= 5") != std::string::npos,
                      s.message());
  BOOST_CHECK_MESSAGE(s.message().find("rand_int") != std::string::npos, s.message());
  s = run(Tensor::FromVector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(5));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(s.message().find("minval must be 0-D") != std::string::npos,
                      s.message());
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_invalid_arguments) {
  for (const Tensor& shape : {Tensor::FromVector<int32_t>({2, -1}), Tensor::Scalar<int32_t>(3),
                              Tensor::FromVector<float>({2})}) {
    KernelRunner r("RandomUniform");
    r.Attr("dtype", DT_FLOAT).Attr("T", DT_INT32).Input(shape);
    BOOST_TEST(r.Run().status().code() == Code::INVALID_ARGUMENT);
  }
  RandomKernel empty("RandomStandardNormal", DT_FLOAT, 1, 1, {0, 5});
  BOOST_TEST(empty.Next().NumElements() == 0);
}

BOOST_AUTO_TEST_CASE(seeds_make_sequences_reproducible) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    BOOST_TEST_CONTEXT(op) {
      RandomKernel a(op, DT_FLOAT, 42, 7, {1001}), b(op, DT_FLOAT, 42, 7, {1001});
      const Tensor a1 = a.Next(), a2 = a.Next();
      // Each run continues the stream: a new step, new numbers.
      BOOST_TEST(!SameValues(a1, a2));
      // A fresh kernel (a new session) with the same seeds repeats them.
      BOOST_TEST(SameValues(b.Next(), a1));
      BOOST_TEST(SameValues(b.Next(), a2));
      // Either seed alone makes it deterministic; changing one changes it.
      RandomKernel graph_seed_only(op, DT_FLOAT, 42, 0, {1001}),
          graph_seed_only2(op, DT_FLOAT, 42, 0, {1001});
      BOOST_TEST(SameValues(graph_seed_only.Next(), graph_seed_only2.Next()));
      RandomKernel other(op, DT_FLOAT, 42, 8, {1001});
      BOOST_TEST(!SameValues(other.Next(), a1));
    }
  }
}

BOOST_AUTO_TEST_CASE(zero_seeds_mean_a_random_stream) {
  RandomKernel a("RandomUniform", DT_DOUBLE, 0, 0, {64}), b("RandomUniform", DT_DOUBLE, 0, 0, {64});
  BOOST_TEST(!SameValues(a.Next(), b.Next()));
}

BOOST_AUTO_TEST_CASE(a_sample_depends_only_on_its_index) {
  // The first values of a large request equal those of a small one: how
  // the work is split into groups (and threads) cannot change them.
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
      RandomKernel small(op, dt, 3, 3, {13}), large(op, dt, 3, 3, {50000});
      const Tensor s = small.Next(), l = large.Next();
      BOOST_CHECK_MESSAGE(std::memcmp(s.raw_data(), l.raw_data(), s.TotalBytes()) == 0,
                          op << " " << DataTypeString(dt));
    }
  }
}

BOOST_AUTO_TEST_CASE(shuffle_permutes_rows) {
  Tensor rows(DT_INT32, TensorShape{1000, 3});
  for (int i = 0; i < 1000; ++i)
    for (int j = 0; j < 3; ++j) rows.data<int32_t>()[i * 3 + j] = i * 10 + j;
  KernelRunner r("RandomShuffle");
  r.Attr("seed", int64_t{1}).Attr("seed2", int64_t{2}).Input(rows);
  auto out = r.Run({rows});
  AF_REQUIRE_OK(out.status());
  const Tensor& t = (*out)[0];
  std::vector<int32_t> firsts;
  int moved = 0;
  for (int i = 0; i < 1000; ++i) {
    const int32_t* row = t.data<int32_t>() + i * 3;
    BOOST_TEST(row[1] == row[0] + 1);  // rows stay whole
    BOOST_TEST(row[2] == row[0] + 2);
    firsts.push_back(row[0]);
    moved += row[0] != i * 10;
  }
  std::sort(firsts.begin(), firsts.end());
  for (int i = 0; i < 1000; ++i) BOOST_TEST(firsts[i] == i * 10);
  BOOST_TEST(moved > 900);

  // Same seeds, same permutation; the next run a different one.
  KernelRunner again("RandomShuffle");
  again.Attr("seed", int64_t{1}).Attr("seed2", int64_t{2}).Input(rows);
  auto out2 = again.Run({rows});
  AF_REQUIRE_OK(out2.status());
  BOOST_TEST(SameValues((*out2)[0], t));
  auto out3 = again.Run({rows});
  AF_REQUIRE_OK(out3.status());
  BOOST_TEST(!SameValues((*out3)[0], t));
}

BOOST_AUTO_TEST_CASE(shuffle_of_strings_and_of_scalars) {
  KernelRunner r("RandomShuffle");
  r.Attr("seed", int64_t{5}).Input(Tensor::FromVector<std::string>({"a", "b", "c", "d"}));
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  std::vector<std::string> got((*out)[0].data<std::string>(), (*out)[0].data<std::string>() + 4);
  std::sort(got.begin(), got.end());
  BOOST_TEST(got == (std::vector<std::string>{"a", "b", "c", "d"}));

  auto scalar = RunKernel("RandomShuffle", {Tensor::Scalar<float>(3)});
  AF_REQUIRE_OK(scalar.status());
  BOOST_TEST((*scalar)[0].scalar<float>() == 3.0f);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
