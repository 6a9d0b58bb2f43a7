#include "actors/accumulator/gradient_sum.h"

#include "actors/accumulator/dense_gradient_sum.h"
#include "actors/accumulator/sparse_gradient_sum.h"

namespace af::actors {

std::unique_ptr<GradientSum> MakeGradientSum(const AccumulatorSpec& spec) {
  return spec.kind == AccumulatorSpec::Kind::kSparse ? MakeSparseGradientSum(spec)
                                                     : MakeDenseGradientSum(spec);
}

}  // namespace af::actors
