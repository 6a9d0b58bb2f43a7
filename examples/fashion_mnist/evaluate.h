// Test accuracy of a model, fed in batches in place of its input.
#pragma once

#include "client/client_session.h"
#include "client/ops.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af::fmnist {

// Fraction of the examples (`images`, `labels`: first dimension n) that
// `num_correct` (a float count per batch) finds right, fed 1,000 at a time
// in place of `images_in` and `labels_in`.
Status EvaluateAccuracy(const ClientSession& session, const Output& images_in,
                        const Output& labels_in, const Output& num_correct, const Tensor& images,
                        const Tensor& labels, double* accuracy);

}  // namespace af::fmnist
