// The row-wise sum of sparse gradients (SparseConditionalAccumulator):
// rows are summed per index and each index counts the gradients that held
// it. Indices are kept sorted, so a take hands them out ascending; a
// gradient may list them in any order and repeat one (its rows are summed
// first and it counts once for that index). TensorFlow assumes sorted,
// unique indices and merges wrongly otherwise.
#pragma once

#include <memory>

#include "actors/accumulator/gradient_sum.h"

namespace af::actors {

// Null for a dtype other than half, float or double.
std::unique_ptr<GradientSum> MakeSparseGradientSum(const AccumulatorSpec& spec);

}  // namespace af::actors
