#include "examples/language_model/lm_model.h"

#include <cmath>
#include <vector>

#include "client/embedding_ops.h"
#include "client/nn/sampled_losses.h"
#include "client/standard_ops.h"
#include "client/variables.h"

namespace af::lm {
namespace {

Output Uniform(const Scope& s, const TensorShape& shape, double limit, int64_t seed,
               int64_t seed2) {
  auto unit = ops::RandomUniform(s, Tensor::FromVector<int64_t>(shape.dim_vector()), DT_FLOAT,
                                 ops::RandomUniform::Seed(seed).Seed2(seed2));
  return ops::Sub(s, ops::Mul(s, unit, static_cast<float>(2 * limit)),
                  static_cast<float>(limit));
}

// One step of TensorFlow's BasicLSTMCell (gates i, g, f, o; forget bias 1).
void LstmStep(const Scope& s, const Output& x, const Output& kernel, const Output& bias,
              Output* h, Output* c) {
  auto z = ops::BiasAdd(s, ops::MatMul(s, ops::ConcatV2(s, {x, *h}, 1), kernel), bias);
  auto gates = ops::Split(s, 1, z, 4);
  *c = ops::Add(s, ops::Mul(s, *c, ops::Sigmoid(s, ops::Add(s, gates.output[2], 1.0f))),
                ops::Mul(s, ops::Sigmoid(s, gates.output[0]), ops::Tanh(s, gates.output[1])));
  *h = ops::Mul(s, ops::Sigmoid(s, gates.output[3]), ops::Tanh(s, *c));
}

}  // namespace

Status BuildLanguageModel(const Scope& scope, const ModelOptions& o, LanguageModel* m) {
  m->inputs = ops::Placeholder(scope.WithOpName("inputs"), DT_INT32,
                               ops::Placeholder::Shape(PartialTensorShape({-1, o.num_steps})));
  m->targets = ops::Placeholder(scope.WithOpName("targets"), DT_INT64,
                                ops::Placeholder::Shape(PartialTensorShape({-1, o.num_steps})));
  const Partitioner shards = FixedSizePartitioner(o.shards);
  m->embedding = std::make_unique<PartitionedVariable>(
      scope.WithOpName("embedding"), TensorShape({o.vocab, o.embedding_dim}), DT_FLOAT, shards,
      RandomUniformInitializer(-0.05, 0.05, o.seed));
  const double w_limit = 1.0 / std::sqrt(static_cast<double>(o.hidden));
  m->softmax_w = std::make_unique<PartitionedVariable>(
      scope.WithOpName("softmax_w"), TensorShape({o.vocab, o.hidden}), DT_FLOAT, shards,
      RandomUniformInitializer(-w_limit, w_limit, o.seed + 1));
  m->softmax_b = std::make_unique<PartitionedVariable>(
      scope.WithOpName("softmax_b"), TensorShape({o.vocab}), DT_FLOAT, shards,
      ConstantInitializer(0.0));
  AF_RETURN_IF_ERROR(scope.status());

  const Scope rnn = scope.NewSubScope("rnn");
  const int64_t in = o.embedding_dim + o.hidden;
  const double k_limit = std::sqrt(6.0 / static_cast<double>(in + 4 * o.hidden));
  Variable kernel(rnn.WithOpName("lstm_kernel"),
                  Uniform(rnn, TensorShape({in, 4 * o.hidden}), k_limit, o.seed, 2));
  Variable bias(rnn.WithOpName("lstm_bias"),
                ops::Const(rnn, 0.0f, TensorShape({4 * static_cast<int64_t>(o.hidden)})));
  // [batch, steps, dim]: each step's words' rows.
  auto embedded = EmbeddingLookup(rnn, m->embedding->shards(), m->inputs, "div");
  auto steps = ops::Unpack(rnn, embedded, o.num_steps, ops::Unpack::Axis(1));
  auto batch = ops::StridedSlice(rnn, ops::Shape(rnn, m->inputs), {0}, {1}, {1});
  auto zero = ops::Reshape(
      rnn, ops::Fill(rnn, ops::ConcatV2(rnn, {batch, ops::Const(rnn, {o.hidden})}, 0), 0.0f),
      {-1, o.hidden});
  Output h = zero, c = zero;
  std::vector<Output> outputs;
  for (int t = 0; t < o.num_steps; ++t) {
    LstmStep(rnn, steps.output[t], kernel, bias, &h, &c);
    outputs.push_back(h);
  }
  // [batch * steps, hidden] in the targets' row-major order.
  auto hidden = ops::Reshape(rnn, ops::Pack(rnn, OutputList(outputs), ops::Pack::Axis(1)),
                             {-1, o.hidden});
  auto flat_targets = ops::Reshape(scope, m->targets, {-1});

  const Scope full = scope.NewSubScope("full_softmax");
  auto logits = ops::BiasAdd(
      full,
      ops::MatMul(full, hidden, m->softmax_w->AsTensor(full), ops::MatMul::TransposeB(true)),
      m->softmax_b->AsTensor(full));
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(full, logits, flat_targets);
  m->eval_loss = ops::Mean(full, xent.loss, {0});
  if (o.num_sampled <= 0) {
    m->train_loss = m->eval_loss;
    return scope.status();
  }
  const Scope sampled = scope.NewSubScope("sampled_softmax");
  auto losses = SampledSoftmaxLoss(sampled, m->softmax_w->shards(), m->softmax_b->shards(),
                                   ops::Reshape(sampled, flat_targets, {-1, 1}), hidden,
                                   o.num_sampled, o.vocab, 1, nullptr, true, "div", o.seed);
  m->train_loss = ops::Mean(sampled, losses, {0});
  return scope.status();
}

}  // namespace af::lm
