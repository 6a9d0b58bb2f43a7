// Trains the language model in one process on the synthetic corpus and
// measures it: words/s over the training steps, the perplexity of the
// held-out text (full softmax) before and after, and the corpus's unigram
// perplexity for scale. bench/lm_words_bench.cc runs it at several
// vocabularies with the full and the sampled softmax.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "examples/language_model/corpus.h"
#include "examples/language_model/lm_model.h"

namespace af::lm {

struct TrainOptions {
  ModelOptions model;
  CorpusOptions corpus;
  int batch = 32;
  int64_t train_steps = 300;
  int eval_batches = 20;
  std::string optimizer = "adagrad";  // sgd, adagrad, lazy_adam, adam, momentum
  double learning_rate = 0.2;
  int threads = 2;
  bool progress = true;
};

struct TrainReport {
  int64_t steps = 0;
  int64_t words = 0;  // trained on: batch * num_steps per step
  // The steps after the first (which sets the graph up): their words and time.
  int64_t timed_words = 0;
  double train_seconds = 0;
  double words_per_second() const { return train_seconds > 0 ? timed_words / train_seconds : 0; }
  double initial_perplexity = 0, final_perplexity = 0, unigram_perplexity = 0;
  double last_train_loss = 0;
};

Status TrainLanguageModel(const TrainOptions& options, TrainReport* report);

}  // namespace af::lm
