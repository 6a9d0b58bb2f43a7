#include "examples/language_model/corpus.h"

#include <cmath>
#include <random>

namespace af::lm {
namespace {

// Rank k with probability log((k + 2) / (k + 1)) / log(vocab + 1): Zipf's
// law in the form the log-uniform candidate sampler uses.
int32_t ZipfWord(std::mt19937_64& rng, int64_t vocab) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double k = std::floor(std::exp(unit(rng) * std::log(static_cast<double>(vocab) + 1))) - 1;
  return static_cast<int32_t>(std::min<double>(std::max(k, 0.0), static_cast<double>(vocab - 1)));
}

}  // namespace

std::vector<int32_t> GenerateCorpus(const CorpusOptions& o) {
  std::mt19937_64 rng(o.seed);
  // Each word's preferred successors, drawn once.
  std::vector<int32_t> successors(static_cast<size_t>(o.vocab * o.successors));
  for (int32_t& s : successors) s = ZipfWord(rng, o.vocab);
  std::vector<int32_t> words(static_cast<size_t>(o.words));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, o.successors - 1);
  int32_t w = ZipfWord(rng, o.vocab);
  for (int32_t& out : words) {
    out = w;
    w = unit(rng) < o.follow_probability
            ? successors[static_cast<size_t>(w) * o.successors + pick(rng)]
            : ZipfWord(rng, o.vocab);
  }
  return words;
}

double UnigramPerplexity(const std::vector<int32_t>& words, int64_t vocab) {
  std::vector<double> counts(static_cast<size_t>(vocab), 0.0);
  for (int32_t w : words) counts[w] += 1;
  double entropy = 0;
  const double n = static_cast<double>(words.size());
  for (double c : counts)
    if (c > 0) entropy -= c / n * std::log(c / n);
  return std::exp(entropy);
}

}  // namespace af::lm
