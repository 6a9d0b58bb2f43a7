// The output shape of the random ops (RandomUniform, RandomStandardNormal,
// TruncatedNormal, RandomUniformInt) on any device, from their 1-D
// int32/int64 "shape" input in host memory, with TensorFlow's errors.
#pragma once

#include "core/status.h"
#include "core/tensor.h"

namespace af::random {

// INVALID_ARGUMENT for a non-vector or non-integer `shape`, a rank over 64,
// or dims TensorShape rejects.
Status ShapeFromTensor(const Tensor& shape, TensorShape* out);

}  // namespace af::random
