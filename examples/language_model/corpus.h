// The language model's text: a synthetic corpus generated deterministically
// from a seed, so every run and every worker sees the same words without a
// download. Word frequencies follow Zipf's law (rank r has probability
// ∝ 1 / (r + 1), as TensorFlow's log-uniform sampler assumes), and the text
// has structure a model can learn: each word has a few preferred
// successors (themselves Zipf-distributed), which follow it 3 times in 4.
// So the best achievable perplexity is far below the unigram perplexity
// (both printed by the example), and a model that learns nothing stays at
// the unigram's.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace af::lm {

struct CorpusOptions {
  int64_t vocab = 40000;
  int64_t words = 1000000;
  uint64_t seed = 1;
  int successors = 4;
  double follow_probability = 0.75;
};

// Word ids in [0, vocab).
std::vector<int32_t> GenerateCorpus(const CorpusOptions& options);

// exp(entropy) of the corpus's unigram distribution, measured on `words`:
// what a model that ignores context achieves at best.
double UnigramPerplexity(const std::vector<int32_t>& words, int64_t vocab);

// Windows of num_steps + 1 words starting at `starts`: inputs [batch,
// num_steps] int32 get the first num_steps, targets (int64) the last.
void FillWindows(const std::vector<int32_t>& words, const std::vector<int64_t>& starts,
                 int num_steps, Tensor* inputs, Tensor* targets);

// The held-out text is the corpus's last tenth: where it starts, and the
// starts of evaluation batch `e` in it (the same windows every time).
int64_t HeldOutStart(const std::vector<int32_t>& words);
void HeldOutStarts(const std::vector<int32_t>& words, int num_steps, int e,
                   std::vector<int64_t>* starts);

}  // namespace af::lm
