// A recurrent Fashion-MNIST classifier shared by examples/lstm_fashion_mnist
// and bench/loop: each image is a sequence of its 28 rows, fed to an LSTM
// cell (TensorFlow's BasicLSTMCell: gates i, g, f, o from one matmul of
// [x_t, h], forget bias 1) inside a WhileLoop over the rows, which it reads
// from a TensorArray; the last h goes through a dense layer to 10 logits.
// Training differentiates through the loop.
#pragma once

#include <cstdint>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"

namespace af::models {

struct LstmClassifier {
  Output logits;       // [batch, 10]
  Output loss;         // scalar mean cross-entropy
  Output num_correct;  // scalar float
};

// images: float [batch, 28, 28, 1]; labels: int32 [batch]. Weights start
// Glorot-uniform (TensorFlow's default for LSTM cells), seeded by `seed`.
// `unrolled` builds 28 copies of the cell instead of the loop (TensorFlow's
// static_rnn against dynamic_rnn), for bench/loop to compare.
Status BuildLstmClassifier(const Scope& scope, const Output& images, const Output& labels,
                           int hidden, int64_t seed, LstmClassifier* out,
                           bool unrolled = false);

}  // namespace af::models
