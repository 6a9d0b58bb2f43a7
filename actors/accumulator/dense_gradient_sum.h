// The element-wise sum of dense gradients (ConditionalAccumulator).
#pragma once

#include <memory>

#include "actors/accumulator/gradient_sum.h"

namespace af::actors {

// Null for a dtype other than half, float or double.
std::unique_ptr<GradientSum> MakeDenseGradientSum(const AccumulatorSpec& spec);

}  // namespace af::actors
