#include "kernels/nn/range_samplers.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace af::sampling {

RandomDraws::RandomDraws(random::GuardedPhilox* generator, uint64_t expected_draws)
    : generator_(generator), chunk_blocks_(std::max<uint64_t>(8, (expected_draws + 1) / 2)) {}

uint64_t RandomDraws::Next64() {
  if (used_in_block_ == 2) {
    if (next_block_ == end_block_) {
      next_block_ = generator_->Reserve(chunk_blocks_);
      end_block_ = next_block_ + chunk_blocks_;
    }
    block_ = generator_->stream().Block(next_block_++);
    used_in_block_ = 0;
  }
  const int k = 2 * used_in_block_++;
  return (static_cast<uint64_t>(block_[k]) << 32) | block_[k + 1];
}

double RandomDraws::NextUnitDouble() { return static_cast<double>(Next64() >> 11) * 0x1.0p-53; }

uint64_t RandomDraws::NextBelow(uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next64()) * n) >> 64);
}

int64_t UniformSampler::Sample(RandomDraws* draws) const {
  return static_cast<int64_t>(draws->NextBelow(static_cast<uint64_t>(range())));
}

double UniformSampler::Probability(int64_t) const { return 1.0 / static_cast<double>(range()); }

LogUniformSampler::LogUniformSampler(int64_t range)
    : RangeSampler(range), log_range_(std::log1p(static_cast<double>(range))) {}

int64_t LogUniformSampler::Sample(RandomDraws* draws) const {
  // F(k) = log(k + 2) / log(range + 1): the k with F(k - 1) <= u < F(k) is
  // floor(exp(u * log(range + 1))) - 1. Rounding can reach range itself
  // when u is within an ulp of 1; clamping keeps it in bounds.
  const double x = std::exp(draws->NextUnitDouble() * log_range_);
  const int64_t k = static_cast<int64_t>(x) - 1;
  return std::clamp<int64_t>(k, 0, range() - 1);
}

double LogUniformSampler::Probability(int64_t value) const {
  const double v = static_cast<double>(value);
  return std::log((v + 2.0) / (v + 1.0)) / log_range_;
}

Status WeightedSampler::Create(std::vector<double> weights, std::unique_ptr<WeightedSampler>* out) {
  std::vector<double> cumulative(weights.size());
  double total = 0;
  int64_t nonzero = 0;
  for (size_t k = 0; k < weights.size(); ++k) {
    const double w = weights[k];
    if (!(w >= 0) || !std::isfinite(w))
      return errors::InvalidArgument("the weight of id ", k, " is ", w,
                                     "; weights must be finite and non-negative");
    total += w;
    cumulative[k] = total;
    if (w > 0) ++nonzero;
  }
  if (!(total > 0) || !std::isfinite(total))
    return errors::InvalidArgument("the ", weights.size(),
                                   " weights must sum to a positive finite number, got ", total);
  out->reset(new WeightedSampler(std::move(weights), std::move(cumulative), nonzero));
  return Status::OK();
}

WeightedSampler::WeightedSampler(std::vector<double> weights, std::vector<double> cumulative,
                                 int64_t num_nonzero)
    : RangeSampler(static_cast<int64_t>(weights.size())),
      weights_(std::move(weights)),
      cumulative_(std::move(cumulative)),
      num_nonzero_(num_nonzero) {}

int64_t WeightedSampler::Sample(RandomDraws* draws) const {
  const double target = draws->NextUnitDouble() * cumulative_.back();
  // The first id whose cumulative sum exceeds the target: a zero weight
  // repeats its predecessor's sum, so it is never the first to exceed.
  auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), target);
  if (it == cumulative_.end()) {
    // target rounded up to the total: the last id that has any weight.
    it = std::lower_bound(cumulative_.begin(), cumulative_.end(), cumulative_.back());
  }
  return static_cast<int64_t>(it - cumulative_.begin());
}

double WeightedSampler::Probability(int64_t value) const {
  if (value < 0 || value >= range()) return 0.0;
  return weights_[static_cast<size_t>(value)] / cumulative_.back();
}

LearnedUnigramSampler::LearnedUnigramSampler(int64_t range)
    : RangeSampler(range),
      counts_(static_cast<size_t>(range), 1),
      tree_(static_cast<size_t>(range) + 1, 0),
      total_(range) {
  // Every count starts at 1: node i covers (i - lowbit(i), i].
  for (int64_t i = 1; i <= range; ++i) tree_[static_cast<size_t>(i)] = i & -i;
}

int64_t LearnedUnigramSampler::Sample(RandomDraws* draws) const {
  int64_t remaining = static_cast<int64_t>(draws->NextBelow(static_cast<uint64_t>(total_)));
  const int64_t n = range();
  int64_t pos = 0;  // the largest prefix whose sum stays <= remaining
  for (auto step = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(n))); step > 0;
       step >>= 1) {
    const int64_t next = pos + step;
    if (next <= n && tree_[static_cast<size_t>(next)] <= remaining) {
      pos = next;
      remaining -= tree_[static_cast<size_t>(next)];
    }
  }
  return pos;  // 1-based pos + 1 is the id's node; as a 0-based id, pos
}

double LearnedUnigramSampler::Probability(int64_t value) const {
  if (value < 0 || value >= range()) return 0.0;
  return static_cast<double>(counts_[static_cast<size_t>(value)]) / static_cast<double>(total_);
}

void LearnedUnigramSampler::Update(std::span<const int64_t> values) {
  const int64_t n = range();
  for (int64_t v : values) {
    ++counts_[static_cast<size_t>(v)];
    ++total_;
    for (int64_t i = v + 1; i <= n; i += i & -i) ++tree_[static_cast<size_t>(i)];
  }
}

double ExpectedCount(double p, int64_t batch_size, int64_t num_tries) {
  if (num_tries == batch_size) return p * static_cast<double>(batch_size);
  return -std::expm1(static_cast<double>(num_tries) * std::log1p(-p));
}

Status SampleBatchWithExpectedCounts(const RangeSampler& sampler, RandomDraws* draws, bool unique,
                                     std::span<int64_t> sampled, std::span<float> sampled_expected,
                                     std::span<const int64_t> true_classes,
                                     std::span<float> true_expected) {
  const int64_t batch_size = static_cast<int64_t>(sampled.size());
  int64_t num_tries = 0;
  if (unique) {
    constexpr int64_t kMaxTries = std::numeric_limits<int32_t>::max();
    std::unordered_set<int64_t> seen(sampled.size() * 2);
    int64_t picked = 0;
    while (picked < batch_size) {
      if (num_tries == kMaxTries)
        return errors::ResourceExhausted("drew only ", picked, " distinct candidates of the ",
                                         batch_size, " asked for in ", kMaxTries, " tries");
      ++num_tries;
      const int64_t value = sampler.Sample(draws);
      if (seen.insert(value).second) sampled[static_cast<size_t>(picked++)] = value;
    }
  } else {
    for (int64_t& value : sampled) value = sampler.Sample(draws);
    num_tries = batch_size;
  }
  for (size_t i = 0; i < sampled.size(); ++i)
    sampled_expected[i] =
        static_cast<float>(ExpectedCount(sampler.Probability(sampled[i]), batch_size, num_tries));
  for (size_t i = 0; i < true_classes.size(); ++i)
    true_expected[i] = static_cast<float>(
        ExpectedCount(sampler.Probability(true_classes[i]), batch_size, num_tries));
  return Status::OK();
}

}  // namespace af::sampling
