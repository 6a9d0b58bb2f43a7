// The word-level LSTM language model of the OSDI paper's §6.4 experiment,
// small enough for one machine: ids -> embedding (partitioned) -> an LSTM
// (TensorFlow's BasicLSTMCell) unrolled over num_steps -> a softmax over
// the vocabulary (weights and biases partitioned). Trained with either the
// full softmax or a sampled softmax (num_sampled > 0); evaluated with the
// full softmax, so perplexities compare.
//
// Every partitioned table is a set of "<name>/part_<i>" variables, so a
// replica device setter spreads them over ps tasks, and every read of one
// is a lookup by id: the gradients reaching them are IndexedSlices.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/ops.h"
#include "client/partitioned_variable.h"
#include "client/scope.h"
#include "core/status.h"

namespace af::lm {

struct ModelOptions {
  int64_t vocab = 40000;
  int embedding_dim = 64;
  int hidden = 128;
  int num_steps = 10;
  int shards = 1;          // of the embedding and of the softmax weights
  int num_sampled = 512;   // 0: train with the full softmax
  int64_t seed = 1;
};

struct LanguageModel {
  Output inputs;      // fed: int32 [batch, num_steps]
  Output targets;     // fed: int64 [batch, num_steps], the next words
  Output train_loss;  // mean over words: sampled (or full) softmax cross-entropy
  Output eval_loss;   // mean over words, full softmax: exp() is the perplexity
  std::unique_ptr<PartitionedVariable> embedding, softmax_w, softmax_b;
};

Status BuildLanguageModel(const Scope& scope, const ModelOptions& options, LanguageModel* model);

}  // namespace af::lm
