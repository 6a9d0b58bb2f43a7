// GradientSum: the arithmetic of one accumulator — the running sum of the
// gradients of the current global step and how many there were — without
// the step rules (AccumulatorCore decides what is added and when a take is
// served). Dense sums add element-wise; sparse sums add row by row, per
// index, and count per index how many gradients held it, because a sparse
// mean divides each row by that count (TensorFlow's semantics), not by the
// number of gradients.
//
// Sums are kept in the gradient's type (float sums stay float, so results
// equal TensorFlow's), except half, which is summed in float and rounded
// once, when taken.
#pragma once

#include <cstdint>
#include <memory>

#include "core/accumulator_interface.h"

namespace af::actors {

class GradientSum {
 public:
  virtual ~GradientSum() = default;

  // Checks `gradient` against the accumulator's shape attr and, while it
  // holds any, against the gradients held (INVALID_ARGUMENT, saying what
  // did not match); then adds it.
  virtual Status Add(const AccumulatorGradient& gradient) = 0;

  // The mean (or sum, by the spec's reduction) of what was added, and
  // empties the sum. Only called when count() > 0. Fails (keeping the sum)
  // only if the result cannot be allocated.
  virtual Status Take(AccumulatorGradient* out) = 0;

  int32_t count() const { return count_; }

 protected:
  int32_t count_ = 0;
};

// A dense or sparse sum for `spec`; null unless its dtype is half, float
// or double.
std::unique_ptr<GradientSum> MakeGradientSum(const AccumulatorSpec& spec);

}  // namespace af::actors
