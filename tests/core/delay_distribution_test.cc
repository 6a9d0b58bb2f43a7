// Sampling of injected delays (core/fault_injection/delay_distribution.h):
// many seeded samples against each distribution's mean and quantiles, and
// the same seed giving the same sequence. Tolerances are several standard
// errors wide, and the seeds fixed, so the checks are deterministic.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fault_injection/delay_distribution.h"
#include "core/fault_injection/fault_rng.h"

namespace af::faults {
namespace {

constexpr int kSamples = 200000;

std::vector<double> Samples(const DelayDistribution& d, uint64_t seed, int n = kSamples) {
  FaultRng rng(seed);
  std::vector<double> out(n);
  for (double& x : out) x = d.SampleNanos(rng);
  return out;
}

double Mean(const std::vector<double>& xs) {
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / xs.size();
}

// The q-quantile of the samples (sorted copy).
double Quantile(std::vector<double> xs, double q) {
  const size_t at = static_cast<size_t>(q * (xs.size() - 1));
  std::nth_element(xs.begin(), xs.begin() + at, xs.end());
  return xs[at];
}

BOOST_AUTO_TEST_CASE(uniform_draws_stay_inside_the_open_unit_interval) {
  FaultRng rng(0);
  double lo = 1, hi = 0, sum = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double u = rng.Uniform();
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
  }
  BOOST_TEST(lo > 0.0);
  BOOST_TEST(hi < 1.0);
  // Standard error of the mean: sqrt(1/12 / n) ~ 0.00065.
  BOOST_TEST(std::abs(sum / kSamples - 0.5) < 0.004);
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_sequence) {
  for (const DelayDistribution& d :
       {DelayDistribution::Exponential(20e6), DelayDistribution::Pareto(10e6, 1.5),
        DelayDistribution::LogNormal(5e6, 1.0), DelayDistribution::Uniform(1e6, 2e6)}) {
    const std::vector<double> a = Samples(d, 7, 1000);
    const std::vector<double> b = Samples(d, 7, 1000);
    const std::vector<double> c = Samples(d, 8, 1000);
    BOOST_TEST(a == b, d.ToString());
    int same = 0;
    for (size_t i = 0; i < a.size(); ++i) same += a[i] == c[i];
    BOOST_TEST(same == 0, d.ToString() << ": seeds 7 and 8 share " << same << " draws");
  }
}

BOOST_AUTO_TEST_CASE(the_sequence_is_fixed_across_standard_libraries) {
  // SplitMix64 from state 0 (Vigna's reference values): the stream owes
  // nothing to <random>, so a seed means the same faults everywhere.
  FaultRng rng(0);
  BOOST_TEST(rng.Next() == 0xE220A8397B1DCDAFull);
  BOOST_TEST(rng.Next() == 0x6E789E6AA1B965F4ull);
  BOOST_TEST(rng.Next() == 0x06C45D188009454Full);
}

BOOST_AUTO_TEST_CASE(constant_and_none_are_exact) {
  FaultRng rng(1);
  BOOST_TEST(DelayDistribution::Constant(50e6).SampleNanos(rng) == 50e6);
  BOOST_TEST(DelayDistribution().SampleNanos(rng) == 0.0);
}

BOOST_AUTO_TEST_CASE(exponential_mean_and_median_match) {
  const DelayDistribution d = DelayDistribution::Exponential(20e6);
  const std::vector<double> xs = Samples(d, 42);
  // Standard error of the mean: 20 ms / sqrt(200000) ~ 0.045 ms; allow 1 %.
  BOOST_TEST(std::abs(Mean(xs) - 20e6) < 0.2e6, "mean " << Mean(xs));
  BOOST_TEST(*std::min_element(xs.begin(), xs.end()) >= 0.0);
  // Median mean*ln 2; 0.99-quantile mean*ln 100.
  BOOST_TEST(std::abs(Quantile(xs, 0.5) / (20e6 * std::log(2.0)) - 1) < 0.02);
  BOOST_TEST(std::abs(Quantile(xs, 0.99) / (20e6 * std::log(100.0)) - 1) < 0.04);
}

BOOST_AUTO_TEST_CASE(pareto_has_its_heavy_tail) {
  // P(X > x) = (scale / x)^alpha, so the q-quantile is scale (1-q)^(-1/alpha).
  const double scale = 10e6, alpha = 1.5;
  const DelayDistribution d = DelayDistribution::Pareto(scale, alpha);
  const std::vector<double> xs = Samples(d, 3);
  BOOST_TEST(*std::min_element(xs.begin(), xs.end()) >= scale);
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double expected = scale * std::pow(1 - q, -1 / alpha);
    // Relative standard error of the estimate: ~1.5 % at 0.99, ~4.7 % at 0.999.
    const double tolerance = q < 0.995 ? 0.06 : 0.15;
    BOOST_TEST(std::abs(Quantile(xs, q) / expected - 1) < tolerance,
               "q " << q << ": " << Quantile(xs, q) << " vs " << expected);
  }
  // Heavier than an exponential of the same mean (30 ms): its 0.999-quantile
  // would be 30 ms * ln 1000 ~ 207 ms; Pareto's is 10 ms * 1000^(2/3) = 1 s.
  BOOST_TEST(Quantile(xs, 0.999) > 4 * 30e6 * std::log(1000.0));
}

BOOST_AUTO_TEST_CASE(lognormal_median_and_spread_match) {
  // Quantiles median * exp(sigma z_q); z_0.5 = 0, z_0.9 = 1.2816, z_0.99 = 2.3263.
  const double median = 5e6, sigma = 1.0;
  const std::vector<double> xs = Samples(DelayDistribution::LogNormal(median, sigma), 11);
  BOOST_TEST(std::abs(Quantile(xs, 0.5) / median - 1) < 0.02);
  BOOST_TEST(std::abs(Quantile(xs, 0.9) / (median * std::exp(1.2816 * sigma)) - 1) < 0.03);
  BOOST_TEST(std::abs(Quantile(xs, 0.99) / (median * std::exp(2.3263 * sigma)) - 1) < 0.06);
  BOOST_TEST(std::abs(Mean(xs) / DelayDistribution::LogNormal(median, sigma).MeanNanos() - 1) <
             0.03);
}

BOOST_AUTO_TEST_CASE(uniform_stays_within_its_bounds) {
  const std::vector<double> xs = Samples(DelayDistribution::Uniform(1e6, 3e6), 5);
  BOOST_TEST(*std::min_element(xs.begin(), xs.end()) >= 1e6);
  BOOST_TEST(*std::max_element(xs.begin(), xs.end()) <= 3e6);
  BOOST_TEST(std::abs(Mean(xs) - 2e6) < 0.01e6);
}

BOOST_AUTO_TEST_CASE(pareto_mean_is_infinite_at_alpha_one_or_less) {
  BOOST_TEST(std::isinf(DelayDistribution::Pareto(1e6, 1.0).MeanNanos()));
  BOOST_TEST(DelayDistribution::Pareto(1e6, 3.0).MeanNanos() == 1.5e6);
}

BOOST_AUTO_TEST_CASE(durations_format_in_the_largest_fitting_unit) {
  BOOST_TEST(FormatDuration(0) == "0ns");
  BOOST_TEST(FormatDuration(250) == "250ns");
  BOOST_TEST(FormatDuration(12500) == "12.5us");
  BOOST_TEST(FormatDuration(20e6) == "20ms");
  BOOST_TEST(FormatDuration(1.5e9) == "1.5s");
  double ns = 0;
  BOOST_TEST(ParseDuration("1.5s", "cap", &ns).ok());
  BOOST_TEST(ns == 1.5e9);
  BOOST_TEST(ParseDuration("0", "cap", &ns).ok());
  BOOST_TEST(ns == 0.0);
  BOOST_TEST(!ParseDuration("5", "cap", &ns).ok());
  BOOST_TEST(!ParseDuration("ms", "cap", &ns).ok());
  BOOST_TEST(!ParseDuration("inf s", "cap", &ns).ok());
}

}  // namespace
}  // namespace af::faults
