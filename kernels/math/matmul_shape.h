// The shapes of MatMul on any device: both operands are matrices, the inner
// dims agree under transpose_a/transpose_b, and the product is [m, n]; with
// TensorFlow's errors.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"

namespace af {

struct MatMulShape {
  int64_t m = 0, k = 0, n = 0;
  TensorShape output;  // [m, n]
};

inline Status MatMulShapes(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                           MatMulShape* out) {
  if (a.dims() != 2) {
    return errors::InvalidArgument("In[0] is not a matrix. Instead it has shape ",
                                   a.shape().DebugString());
  }
  if (b.dims() != 2) {
    return errors::InvalidArgument("In[1] is not a matrix. Instead it has shape ",
                                   b.shape().DebugString());
  }
  const int64_t m = a.dim_size(transpose_a ? 1 : 0);
  const int64_t k = a.dim_size(transpose_a ? 0 : 1);
  const int64_t kb = b.dim_size(transpose_b ? 1 : 0);
  const int64_t n = b.dim_size(transpose_b ? 0 : 1);
  if (k != kb) {
    return errors::InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                   ", In[1]: ", b.shape().DebugString());
  }
  out->m = m;
  out->k = k;
  out->n = n;
  out->output = TensorShape{m, n};
  return Status::OK();
}

}  // namespace af
