// The shapes of BatchMatMul and BatchMatMulV2 on any device: the batch dims
// (equal for V1, broadcast for V2), the product's m, k, n under adj_x/adj_y,
// and the output shape, with TensorFlow's errors.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/math/broadcast.h"

namespace af {

struct BatchMatMulShape {
  TensorShape x_batch, y_batch;  // the dims before the last two
  BinaryBroadcast plan;          // over the batch dims
  int64_t m = 0, k = 0, n = 0;
  TensorShape output;            // the batch dims, then [m, n]
};

Status BatchMatMulShapes(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y,
                         bool broadcast_batch, BatchMatMulShape* out);

}  // namespace af
