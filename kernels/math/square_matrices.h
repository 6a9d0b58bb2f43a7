// Shared by the linear-algebra kernels that work on batches of square
// matrices ([..., M, M]): input validation and the batch layout.
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

struct SquareMatrixBatch {
  int64_t batches = 0;  // product of the leading dims
  int64_t size = 0;     // M
};

// INVALID_ARGUMENT (naming the node) unless `input` is [..., M, M].
inline Status ValidateSquareMatrices(const OpKernelContext& ctx, const Tensor& input,
                                     SquareMatrixBatch* out) {
  const int rank = input.dims();
  if (rank < 2)
    return ctx.NodeError(errors::InvalidArgument("Input tensor 0 must have rank >= 2, got shape ",
                                                 input.shape().DebugString()));
  const int64_t rows = input.dim_size(rank - 2), cols = input.dim_size(rank - 1);
  if (rows != cols)
    return ctx.NodeError(errors::InvalidArgument("Input matrix must be square, got shape ",
                                                 input.shape().DebugString()));
  out->size = rows;
  out->batches = 1;
  for (int d = 0; d < rank - 2; ++d) out->batches *= input.dim_size(d);
  return Status::OK();
}

}  // namespace af
