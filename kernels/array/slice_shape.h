// The shape of Slice on any device: begin and size (host vectors, inputs 1
// and 2) read and checked against the input, size -1 resolved to the rest
// of the dim, with TensorFlow's errors (naming the node).
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {

struct SliceShape {
  DimVector begin, size;  // per input dim; size resolved (no -1)
  TensorShape output;     // = size
};

inline Status ComputeSliceShape(OpKernelContext* ctx, const Tensor& in, SliceShape* out) {
  DimVector& begin = out->begin;
  DimVector& size = out->size;
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, 1, "begin", &begin));
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, 2, "size", &size));
  const int rank = in.dims();
  if (begin.size() != rank || size.size() != rank)
    return ctx->NodeError(errors::InvalidArgument(
        "Expected begin and size arguments to be 1-D tensors of size ", rank,
        ", but got shapes [", begin.size(), "] and [", size.size(), "] instead."));
  out->output = TensorShape();
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = in.dim_size(i), b = begin[i];
    if (b < 0 || b > dim)
      return ctx->NodeError(errors::InvalidArgument("Expected begin[", i, "] in [0, ", dim,
                                                    "], but got ", b));
    if (size[i] == -1) size[i] = dim - b;
    if (size[i] < 0 || b + size[i] > dim)
      return ctx->NodeError(errors::InvalidArgument("Expected size[", i, "] in [0, ", dim - b,
                                                    "], but got ", size[i]));
    out->output.AddDim(size[i]);
  }
  return Status::OK();
}

// If the (non-empty) box of `size` at `begin` (unit steps) is one
// contiguous run of `in`, output 0 becomes that run of in's buffer under
// `out_shape` and *shared is true; otherwise nothing is output.
inline Status ShareContiguousBox(OpKernelContext* ctx, const Tensor& in, const DimVector& begin,
                                 const DimVector& size, const TensorShape& out_shape,
                                 bool* shared) {
  int64_t offset = 0;
  *shared = out_shape.num_elements() > 0 && ContiguousBox(in.shape(), begin, size, &offset);
  if (!*shared) return Status::OK();
  if (out_shape.num_elements() == in.NumElements()) return ShareAsOutput(ctx, in, out_shape);
  Tensor flat, piece;
  AF_RETURN_IF_ERROR(ShareAs(ctx, in, TensorShape{in.NumElements()}, &flat));
  AF_RETURN_IF_ERROR(
      ShareAs(ctx, flat.Slice(offset, offset + out_shape.num_elements()), out_shape, &piece));
  ctx->set_output(0, std::move(piece));
  return Status::OK();
}

}  // namespace af
