#include "examples/models/lstm_model.h"

#include <cmath>

#include "client/control_flow/while_loop.h"
#include "client/standard_ops.h"
#include "client/variables.h"

namespace af::models {
namespace {

constexpr int kRows = 28;

Output GlorotUniform(const Scope& scope, const std::string& name, int64_t fan_in,
                     int64_t fan_out, int64_t seed, int64_t seed2) {
  const float limit = static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
  auto unit = ops::RandomUniform(
      scope, Tensor::FromVector<int32_t>({static_cast<int32_t>(fan_in), static_cast<int32_t>(fan_out)}),
      DT_FLOAT, ops::RandomUniform::Seed(seed).Seed2(seed2));
  auto init = ops::Sub(scope, ops::Mul(scope, unit, 2.0f * limit), limit);
  return Variable(scope.WithOpName(name), init);
}

Output Zeros(const Scope& scope, const std::string& name, int64_t n) {
  return Variable(scope.WithOpName(name), ops::Const(scope, 0.0f, TensorShape{n}));
}

// One step of the cell: the new (h, c).
void LstmCell(const Scope& s, const Output& x_t, const Output& h, const Output& c,
              const Output& kernel, const Output& bias, Output* next_h, Output* next_c) {
  auto z = ops::BiasAdd(s, ops::MatMul(s, ops::ConcatV2(s, {x_t, h}, 1), kernel), bias);
  auto gates = ops::Split(s, 1, z, 4);  // i, g, f, o
  *next_c = ops::Add(s, ops::Mul(s, c, ops::Sigmoid(s, ops::Add(s, gates.output[2], 1.0f))),
                     ops::Mul(s, ops::Sigmoid(s, gates.output[0]), ops::Tanh(s, gates.output[1])));
  *next_h = ops::Mul(s, ops::Sigmoid(s, gates.output[3]), ops::Tanh(s, *next_c));
}

}  // namespace

Status BuildLstmClassifier(const Scope& scope, const Output& images, const Output& labels,
                           int hidden, int64_t seed, LstmClassifier* out, bool unrolled) {
  const Scope rnn = scope.NewSubScope("rnn");
  // [batch, 28, 28, 1] -> the rows as a time-major sequence [28, batch, 28].
  auto rows = ops::Transpose(rnn, ops::Reshape(rnn, images, {-1, kRows, kRows}), {1, 0, 2});
  const Scope cell = rnn.NewSubScope("lstm_cell");
  auto kernel = GlorotUniform(cell, "kernel", kRows + hidden, 4 * hidden, seed, 1);
  auto bias = Zeros(cell, "bias", 4 * hidden);
  // Zero state sized by the batch the images bring.
  auto batch = ops::StridedSlice(rnn, ops::Shape(rnn, images), {0}, {1}, {1});
  auto state_shape = ops::ConcatV2(rnn, {batch, ops::Const(rnn, {hidden})}, 0);
  // The reshape tells shape inference the state's width.
  auto zero_state = ops::Reshape(rnn, ops::Fill(rnn, state_shape, 0.0f), {-1, hidden});

  Output last_h;
  if (unrolled) {
    Output h = zero_state, c = zero_state;
    auto steps = ops::Unpack(rnn, rows, kRows);
    for (int t = 0; t < kRows; ++t) {
      Output next_h, next_c;
      LstmCell(cell, steps.output[t], h, c, kernel, bias, &next_h, &next_c);
      h = next_h;
      c = next_c;
    }
    last_h = h;
  } else {
    auto inputs = ops::TensorArrayV3(rnn.WithOpName("inputs"), kRows, DT_FLOAT,
                                     ops::TensorArrayV3::ElementShape(PartialTensorShape({-1, kRows})));
    auto unstacked = ops::TensorArrayScatterV3(rnn, inputs.handle, ops::Range(rnn, 0, kRows, 1),
                                               rows, inputs.flow);
    WhileLoopOptions options;
    options.shape_invariants = {PartialTensorShape({}), PartialTensorShape({-1, hidden}),
                                PartialTensorShape({-1, hidden})};
    std::vector<Output> final_state;
    AF_RETURN_IF_ERROR(WhileLoop(
        rnn, {ops::Const(rnn, 0), zero_state, zero_state},
        [](const Scope& s, const std::vector<Output>& v, Output* go_on) {
          *go_on = ops::Less(s, v[0], kRows);
          return s.status();
        },
        [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
          auto x_t = ops::TensorArrayReadV3(s, inputs.handle, v[0], unstacked.flow_out, DT_FLOAT);
          Output next_h, next_c;
          LstmCell(s, x_t.value, v[1], v[2], kernel, bias, &next_h, &next_c);
          *next = {ops::Add(s, v[0], 1), next_h, next_c};
          return s.status();
        },
        &final_state, options));
    last_h = final_state[1];
  }

  const Scope dense = scope.NewSubScope("logits");
  auto w = GlorotUniform(dense, "weights", hidden, 10, seed, 2);
  auto b = Zeros(dense, "biases", 10);
  out->logits = ops::BiasAdd(dense, ops::MatMul(dense, last_h, w), b);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(scope, out->logits, labels);
  out->loss = ops::Mean(scope, xent.loss, {0});
  auto predicted = ops::ArgMax(scope, out->logits, 1, ops::ArgMax::OutputType(DT_INT32));
  out->num_correct =
      ops::Sum(scope, ops::Cast(scope, ops::Equal(scope, predicted, labels), DT_FLOAT), {0});
  return scope.status();
}

}  // namespace af::models
