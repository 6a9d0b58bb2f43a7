// Losses over a few sampled classes instead of all of them (TensorFlow's
// tf.nn.sampled_softmax_loss and tf.nn.nce_loss): with a vocabulary of a
// million words, the full softmax costs a [batch, 1M] matmul per step, and
// its gradient touches every row of the output embedding. These score each
// example only against its true classes and num_sampled classes drawn from
// a candidate sampler, correcting each logit by log(expected count) so that
// the sampler's preferences cancel out; the weight gradient then reaches
// only the rows that were looked up (IndexedSlices on each shard).
//
//   PartitionedVariable w(scope.WithOpName("softmax_w"), {num_classes, dim}, DT_FLOAT,
//                         FixedSizePartitioner(4), RandomUniformInitializer(-0.1, 0.1));
//   Variable b(scope.WithOpName("softmax_b"), ops::Fill(scope, {num_classes}, 0.0f));
//   Output loss = SampledSoftmaxLoss(scope, w.shards(), {b}, labels, hidden,
//                                    /*num_sampled=*/64, num_classes);
//
// Training only: evaluate with the full softmax (inputs @ W^T + b).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"

namespace af {

// What a candidate sampler returned (the three outputs of
// UniformCandidateSampler and its siblings): sampled [num_sampled] int64,
// true_expected_count [batch, num_true] and sampled_expected_count
// [num_sampled], float.
struct SampledValues {
  Output sampled, true_expected_count, sampled_expected_count;
};

// Per-example loss [batch]: softmax cross-entropy over the num_true true
// classes (each with target 1 / num_true) and the sampled ones (target 0).
//
// weights: shards of [num_classes, dim]; biases: shards of [num_classes],
// split by `partition_strategy` ("mod" or "div", as EmbeddingLookup).
// labels: int64 (or int32) [batch, num_true]; inputs: [batch, dim], float
// or double. sampled_values: null draws LogUniformCandidateSampler(labels,
// num_true, num_sampled, unique = true, range_max = num_classes), seeded by
// `seed` as other random ops are. remove_accidental_hits: a sampled class
// that is one of the example's true classes gets -FLT_MAX added to its
// logit. Errors go to the scope's status.
Output SampledSoftmaxLoss(const Scope& scope, const std::vector<Output>& weights,
                          const std::vector<Output>& biases, const Output& labels,
                          const Output& inputs, int64_t num_sampled, int64_t num_classes,
                          int64_t num_true = 1, const SampledValues* sampled_values = nullptr,
                          bool remove_accidental_hits = true,
                          const std::string& partition_strategy = "mod", int64_t seed = 0);

// Per-example noise-contrastive estimation loss [batch] (Gutmann and
// Hyvärinen, 2010): the sum over the true and sampled logits of the
// sigmoid cross-entropy against 1 / num_true (true) and 0 (sampled).
// Arguments as SampledSoftmaxLoss; accidental hits are kept by default,
// as TensorFlow's nce_loss does.
Output NceLoss(const Scope& scope, const std::vector<Output>& weights,
               const std::vector<Output>& biases, const Output& labels, const Output& inputs,
               int64_t num_sampled, int64_t num_classes, int64_t num_true = 1,
               const SampledValues* sampled_values = nullptr, bool remove_accidental_hits = false,
               const std::string& partition_strategy = "mod", int64_t seed = 0);

}  // namespace af
