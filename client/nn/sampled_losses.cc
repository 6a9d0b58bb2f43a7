#include "client/nn/sampled_losses.h"

#include "client/embedding_ops.h"
#include "client/gradients/grad_helpers.h"
#include "client/standard_ops.h"

namespace af {
namespace {

using grad::IndexVector;
using grad::ScalarOfType;

struct SampledLossArgs {
  const std::vector<Output>& weights;
  const std::vector<Output>& biases;
  const Output& labels;
  const Output& inputs;
  int64_t num_sampled, num_classes, num_true;
  const SampledValues* sampled_values;
  bool remove_accidental_hits;
  const std::string& partition_strategy;
  int64_t seed;
};

Status Validate(const char* loss, const SampledLossArgs& a) {
  if (a.weights.empty() || a.biases.empty())
    return errors::InvalidArgument(loss, ": weights and biases need at least one shard each");
  if (a.num_true < 1 || a.num_sampled < 1 || a.num_classes < 1)
    return errors::InvalidArgument(loss,
                                   ": num_true, num_sampled and num_classes must be >= 1, "
                                   "got ",
                                   a.num_true, ", ", a.num_sampled, ", ", a.num_classes);
  const DataType dtype = BaseType(a.inputs.type());
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE)
    return errors::InvalidArgument(loss, ": inputs must be float or double, got ",
                                   DataTypeString(dtype));
  const DataType label_type = BaseType(a.labels.type());
  if (label_type != DT_INT64 && label_type != DT_INT32)
    return errors::InvalidArgument(loss, ": labels must be int64 or int32, got ",
                                   DataTypeString(label_type));
  const PartialTensorShape label_shape = a.labels.shape();
  if (!label_shape.unknown_rank() &&
      (label_shape.dims() != 2 ||
       (label_shape.dim_size(1) >= 0 && label_shape.dim_size(1) != a.num_true)))
    return errors::InvalidArgument(loss, ": labels must be [batch_size, num_true = ", a.num_true,
                                   "], got shape ", label_shape.DebugString());
  return Status::OK();
}

SampledValues DefaultSampler(const Scope& s, const Output& labels, const SampledLossArgs& a) {
  // As TensorFlow's random ops: an op seed without a graph seed pairs with
  // a fixed default graph seed; no seed at all draws a fresh one.
  constexpr int64_t kDefaultGraphSeed = 87654321;
  auto attrs = a.seed != 0 ? ops::LogUniformCandidateSampler::Seed(kDefaultGraphSeed).Seed2(a.seed)
                           : ops::LogUniformCandidateSampler::Attrs();
  ops::LogUniformCandidateSampler sampler(s, labels, a.num_true, a.num_sampled, /*unique=*/true,
                                          a.num_classes, attrs);
  return {sampler.sampled_candidates, sampler.true_expected_count, sampler.sampled_expected_count};
}

// [batch, num_sampled] zeros with -FLT_MAX where a sampled class is one of
// the row's true classes. ComputeAccidentalHits reports each (row,
// position) once, so ScatterNd's summing of repeats never reaches -inf.
Output AccidentalHitsMask(const Scope& s, const Output& labels, const Output& sampled,
                          DataType dtype, const SampledLossArgs& a) {
  auto hits = ops::ComputeAccidentalHits(s, labels, sampled, a.num_true);
  auto coords = ops::ConcatV2(
      s,
      {ops::Reshape(s, hits.indices, IndexVector(s, DT_INT32, {-1, 1})),
       ops::Reshape(s, ops::Cast(s, hits.ids, DT_INT32), IndexVector(s, DT_INT32, {-1, 1}))},
      ScalarOfType(s, DT_INT32, 1));
  auto batch = ops::Slice(s, ops::Shape(s, labels), IndexVector(s, DT_INT32, {0}),
                          IndexVector(s, DT_INT32, {1}));
  auto shape = ops::ConcatV2(s, {batch, IndexVector(s, DT_INT32, {a.num_sampled})},
                             ScalarOfType(s, DT_INT32, 0));
  return ops::StopGradient(s, ops::ScatterNd(s, coords, ops::Cast(s, hits.weights, dtype), shape));
}

// The logits of each example's true classes and of the sampled classes,
// [batch, num_true + num_sampled], and their targets (1 / num_true for the
// true classes, 0 for the sampled ones), each logit less log(expected
// count).
Status ComputeSampledLogits(const Scope& scope, const char* loss, const SampledLossArgs& a,
                            Output* logits, Output* targets) {
  AF_RETURN_IF_ERROR(Validate(loss, a));
  const Scope s = scope.NewSubScope("compute_sampled_logits");
  const DataType dtype = BaseType(a.inputs.type());
  const Output labels =
      BaseType(a.labels.type()) == DT_INT64 ? a.labels : Output(ops::Cast(s, a.labels, DT_INT64));
  const SampledValues drawn = a.sampled_values ? *a.sampled_values : DefaultSampler(s, labels, a);
  // The sampler's choice is data, not a function of the parameters.
  Output sampled = ops::StopGradient(s, drawn.sampled);
  if (BaseType(sampled.type()) != DT_INT64) sampled = ops::Cast(s, sampled, DT_INT64);
  auto as_dtype = [&](const Output& count) {
    return BaseType(count.type()) == dtype ? count : Output(ops::Cast(s, count, dtype));
  };
  auto true_expected = as_dtype(ops::StopGradient(s, drawn.true_expected_count));
  auto sampled_expected = as_dtype(ops::StopGradient(s, drawn.sampled_expected_count));

  // One lookup of the true and sampled rows together: one trip per shard.
  auto labels_flat = ops::Reshape(s, labels, IndexVector(s, DT_INT32, {-1}));
  auto all_ids = ops::ConcatV2(s, {labels_flat, sampled}, ScalarOfType(s, DT_INT32, 0));
  Output all_w = EmbeddingLookup(s, a.weights, all_ids, a.partition_strategy);
  Output all_b = EmbeddingLookup(s, a.biases, all_ids, a.partition_strategy);
  AF_RETURN_IF_ERROR(s.status());
  auto num_true_ids = ops::Reshape(s, ops::Size(s, labels_flat), IndexVector(s, DT_INT32, {1}));
  auto zero = IndexVector(s, DT_INT32, {0});
  auto rest = IndexVector(s, DT_INT32, {-1});
  auto true_w = ops::Slice(s, all_w, ops::ConcatV2(s, {zero, zero}, ScalarOfType(s, DT_INT32, 0)),
                           ops::ConcatV2(s, {num_true_ids, rest}, ScalarOfType(s, DT_INT32, 0)));
  auto sampled_w =
      ops::Slice(s, all_w, ops::ConcatV2(s, {num_true_ids, zero}, ScalarOfType(s, DT_INT32, 0)),
                 IndexVector(s, DT_INT32, {-1, -1}));
  auto true_b = ops::Slice(s, all_b, zero, num_true_ids);
  auto sampled_b = ops::Slice(s, all_b, num_true_ids, rest);

  // Each example against its own num_true rows: [batch, 1, dim] times
  // [batch, num_true, dim], summed over dim. A static dim keeps the
  // shapes known when the graph is built.
  const PartialTensorShape input_shape = a.inputs.shape();
  Output true_w_shape;
  if (input_shape.dims() == 2 && input_shape.dim_size(1) >= 0) {
    true_w_shape = IndexVector(s, DT_INT32, {-1, a.num_true, input_shape.dim_size(1)});
  } else {
    auto dim = ops::Slice(s, ops::Shape(s, a.inputs), IndexVector(s, DT_INT32, {1}),
                          IndexVector(s, DT_INT32, {1}));
    true_w_shape = ops::ConcatV2(s, {IndexVector(s, DT_INT32, {-1, a.num_true}), dim},
                                 ScalarOfType(s, DT_INT32, 0));
  }
  auto per_true_row = ops::Mul(s, ops::ExpandDims(s, a.inputs, ScalarOfType(s, DT_INT32, 1)),
                               ops::Reshape(s, true_w, true_w_shape));
  Output true_logits =
      ops::Add(s, ops::Sum(s, per_true_row, ScalarOfType(s, DT_INT32, 2)),
               ops::Reshape(s, true_b, IndexVector(s, DT_INT32, {-1, a.num_true})));
  Output sampled_logits =
      ops::Add(s, ops::MatMul(s, a.inputs, sampled_w, ops::MatMul::TransposeB(true)), sampled_b);
  if (a.remove_accidental_hits)
    sampled_logits = ops::Add(s, sampled_logits, AccidentalHitsMask(s, labels, sampled, dtype, a));
  true_logits = ops::Sub(s, true_logits, ops::Log(s, true_expected));
  sampled_logits = ops::Sub(s, sampled_logits, ops::Log(s, sampled_expected));

  *logits = ops::ConcatV2(s, {true_logits, sampled_logits}, ScalarOfType(s, DT_INT32, 1));
  auto true_targets = ops::Mul(s, ops::OnesLike(s, true_logits),
                               ScalarOfType(s, dtype, 1.0 / static_cast<double>(a.num_true)));
  *targets =
      ops::StopGradient(s, ops::ConcatV2(s, {true_targets, ops::ZerosLike(s, sampled_logits)},
                                         ScalarOfType(s, DT_INT32, 1)));
  return s.status();
}

enum class LossKind { kSoftmax, kNce };

Output SampledLoss(LossKind kind, const Scope& scope, const SampledLossArgs& args) {
  if (!scope.ok()) return Output();
  const bool softmax = kind == LossKind::kSoftmax;
  const Scope s = scope.NewSubScope(softmax ? "sampled_softmax_loss" : "nce_loss");
  Output logits, targets;
  Status st =
      ComputeSampledLogits(s, softmax ? "SampledSoftmaxLoss" : "NceLoss", args, &logits, &targets);
  if (!st.ok()) {
    s.UpdateStatus(st);
    return Output();
  }
  if (softmax) return ops::SoftmaxCrossEntropyWithLogits(s, logits, targets).loss;
  // Sigmoid cross-entropy, z the target: max(x, 0) - x z + log(1 + e^-|x|),
  // which never exponentiates a large positive number.
  auto per_logit = ops::Add(s, ops::Sub(s, ops::Relu(s, logits), ops::Mul(s, logits, targets)),
                            ops::Log1p(s, ops::Exp(s, ops::Neg(s, ops::Abs(s, logits)))));
  return ops::Sum(s, per_logit, ScalarOfType(s, DT_INT32, 1));
}

}  // namespace

Output SampledSoftmaxLoss(const Scope& scope, const std::vector<Output>& weights,
                          const std::vector<Output>& biases, const Output& labels,
                          const Output& inputs, int64_t num_sampled, int64_t num_classes,
                          int64_t num_true, const SampledValues* sampled_values,
                          bool remove_accidental_hits, const std::string& partition_strategy,
                          int64_t seed) {
  return SampledLoss(LossKind::kSoftmax, scope,
                     {weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                      sampled_values, remove_accidental_hits, partition_strategy, seed});
}

Output NceLoss(const Scope& scope, const std::vector<Output>& weights,
               const std::vector<Output>& biases, const Output& labels, const Output& inputs,
               int64_t num_sampled, int64_t num_classes, int64_t num_true,
               const SampledValues* sampled_values, bool remove_accidental_hits,
               const std::string& partition_strategy, int64_t seed) {
  return SampledLoss(LossKind::kNce, scope,
                     {weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                      sampled_values, remove_accidental_hits, partition_strategy, seed});
}

}  // namespace af
