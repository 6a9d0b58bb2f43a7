// A tensor printed as numpy's str() prints an array, which is how
// saved_model_cli shows a signature's outputs ("Result for output key y:"
// then "[[2.5]\n [3. ]\n [4.5]]"): floats with at most 8 fractional
// digits, trailing zeros dropped and the decimal points aligned, or in
// scientific notation when the magnitudes span too much; 0-d arrays as the
// scalar's repr; arrays over 1000 elements summarized with "...".
#pragma once

#include <string>

#include "core/tensor.h"

namespace af::tools {

std::string NumpyString(const Tensor& t);

}  // namespace af::tools
