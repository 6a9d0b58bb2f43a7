// The shape of Tile on any device: multiples (a host vector, input 1) read
// and checked against the input, and the output shape, with TensorFlow's
// errors (naming the node).
#pragma once

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {

struct TileShape {
  DimVector multiples;  // one per input dim, each >= 0
  TensorShape output;   // input dim i times multiples[i]
};

inline Status ComputeTileShape(OpKernelContext* ctx, const Tensor& in, TileShape* out) {
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, 1, "multiples", &out->multiples));
  const DimVector& multiples = out->multiples;
  const int rank = in.dims();
  if (multiples.size() != rank)
    return ctx->NodeError(
        errors::InvalidArgument("Expected multiples argument to be a vector of length ", rank,
                                " but got length ", multiples.size()));
  out->output = TensorShape();
  for (int i = 0; i < rank; ++i) {
    if (multiples[i] < 0)
      return ctx->NodeError(errors::InvalidArgument("Expected multiples[", i, "] >= 0, but got ",
                                                    multiples[i]));
    out->output.AddDim(in.dim_size(i) * multiples[i]);
  }
  return Status::OK();
}

}  // namespace af
