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

void FillWindows(const std::vector<int32_t>& words, const std::vector<int64_t>& starts,
                 int num_steps, Tensor* inputs, Tensor* targets) {
  int32_t* in = inputs->data<int32_t>();
  int64_t* out = targets->data<int64_t>();
  for (size_t b = 0; b < starts.size(); ++b)
    for (int t = 0; t < num_steps; ++t) {
      in[b * num_steps + t] = words[starts[b] + t];
      out[b * num_steps + t] = words[starts[b] + t + 1];
    }
}

int64_t HeldOutStart(const std::vector<int32_t>& words) {
  return static_cast<int64_t>(words.size()) * 9 / 10;
}

void HeldOutStarts(const std::vector<int32_t>& words, int num_steps, int e,
                   std::vector<int64_t>* starts) {
  const int64_t begin = HeldOutStart(words);
  const int64_t span = static_cast<int64_t>(words.size()) - begin - num_steps - 1;
  const int64_t batch = static_cast<int64_t>(starts->size());
  for (int64_t b = 0; b < batch; ++b)
    (*starts)[b] = begin + (static_cast<int64_t>(e) * batch + b) * 7919 % (span + 1);
}

}  // namespace af::lm
