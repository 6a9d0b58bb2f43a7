// Distributions over the integers [0, range) that the candidate-sampling
// ops draw "negative" classes from (TensorFlow's UniformCandidateSampler
// and its siblings), and the batch draw they share: candidates plus the
// expected number of times each of them, and each true class, would have
// been drawn. Sampled softmax and NCE subtract log(expected count) from a
// logit to undo the sampler's bias, so those counts must match the way the
// candidates were actually drawn (with or without rejection of repeats).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/status.h"
#include "kernels/random/guarded_philox.h"

namespace af::sampling {

// Random numbers for one batch draw, taken from the kernel's Philox stream.
// How many a rejection-sampling batch needs is not known in advance, so
// blocks are reserved in chunks as they run out: one Compute never reuses
// blocks another Compute got, and a kernel with fixed seeds that runs its
// steps one after another repeats its sequence exactly.
class RandomDraws {
 public:
  // `expected_draws` sizes the first reservation.
  RandomDraws(random::GuardedPhilox* generator, uint64_t expected_draws);

  uint64_t Next64();
  // Uniform in [0, 1), 53 bits.
  double NextUnitDouble();
  // Uniform in [0, n), n > 0; the multiply-shift map keeps the bias below
  // n / 2^64.
  uint64_t NextBelow(uint64_t n);

 private:
  random::GuardedPhilox* generator_;
  uint64_t chunk_blocks_;
  uint64_t next_block_ = 0, end_block_ = 0;
  random::PhiloxBlock block_{};
  int used_in_block_ = 2;  // 64-bit draws taken from block_ (two per block)
};

class RangeSampler {
 public:
  explicit RangeSampler(int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;
  RangeSampler(const RangeSampler&) = delete;
  RangeSampler& operator=(const RangeSampler&) = delete;

  int64_t range() const { return range_; }
  virtual int64_t Sample(RandomDraws* draws) const = 0;
  // The probability of one draw giving `value`; 0 outside [0, range) for
  // the table-driven samplers.
  virtual double Probability(int64_t value) const = 0;
  // How many distinct values can come out at all: a unique batch larger
  // than this would reject forever.
  virtual int64_t NumPossibleValues() const { return range_; }
  // Samplers that learn from the true classes they are shown.
  virtual bool NeedsUpdates() const { return false; }
  virtual void Update(std::span<const int64_t> values) {}

 private:
  const int64_t range_;
};

// P(k) = 1 / range.
class UniformSampler : public RangeSampler {
 public:
  explicit UniformSampler(int64_t range) : RangeSampler(range) {}
  int64_t Sample(RandomDraws* draws) const override;
  double Probability(int64_t value) const override;
};

// Zipfian: P(k) = log((k + 2) / (k + 1)) / log(range + 1), which favours
// small ids as word frequencies sorted by rank do. Drawn by inverting the
// CDF, F(k) = log(k + 2) / log(range + 1).
class LogUniformSampler : public RangeSampler {
 public:
  explicit LogUniformSampler(int64_t range);
  int64_t Sample(RandomDraws* draws) const override;
  double Probability(int64_t value) const override;

 private:
  const double log_range_;
};

// P(k) proportional to weights[k] (non-negative, not all zero). Drawn by
// binary search over the cumulative sums.
class WeightedSampler : public RangeSampler {
 public:
  // INVALID_ARGUMENT when a weight is negative or not finite, or they sum
  // to zero.
  static Status Create(std::vector<double> weights, std::unique_ptr<WeightedSampler>* out);
  int64_t Sample(RandomDraws* draws) const override;
  double Probability(int64_t value) const override;
  int64_t NumPossibleValues() const override { return num_nonzero_; }

 private:
  WeightedSampler(std::vector<double> weights, std::vector<double> cumulative, int64_t num_nonzero);
  const std::vector<double> weights_, cumulative_;
  const int64_t num_nonzero_;
};

// Starts uniform (every class counted once) and adds one to a class's count
// each time Update sees it: P(k) = count[k] / total. Counts sit in a
// Fenwick tree so that both a draw and an update cost O(log range).
// Not thread-safe: the kernel that owns one serializes its use.
class LearnedUnigramSampler : public RangeSampler {
 public:
  explicit LearnedUnigramSampler(int64_t range);
  int64_t Sample(RandomDraws* draws) const override;
  double Probability(int64_t value) const override;
  bool NeedsUpdates() const override { return true; }
  // Values must lie in [0, range) (the kernel checks).
  void Update(std::span<const int64_t> values) override;

 private:
  std::vector<int64_t> counts_;
  std::vector<int64_t> tree_;  // Fenwick tree over counts_, 1-based
  int64_t total_ = 0;
};

// The expected count of a value of probability p in a batch of
// `batch_size` candidates that took `num_tries` draws: p * batch_size when
// nothing was rejected (always so when repeats are allowed), else the
// chance of appearing at least once in num_tries draws, 1 - (1 - p)^tries,
// computed without cancellation for small p.
double ExpectedCount(double p, int64_t batch_size, int64_t num_tries);

// Draws sampled.size() candidates (distinct ones when `unique`, by
// rejection) and fills their expected counts and those of `true_classes`.
// The caller has checked that a unique batch fits in
// sampler.NumPossibleValues(); a distribution so skewed that the distinct
// candidates still do not come within 2^31 draws is RESOURCE_EXHAUSTED
// rather than a hang.
Status SampleBatchWithExpectedCounts(const RangeSampler& sampler, RandomDraws* draws, bool unique,
                                     std::span<int64_t> sampled, std::span<float> sampled_expected,
                                     std::span<const int64_t> true_classes,
                                     std::span<float> true_expected);

}  // namespace af::sampling
