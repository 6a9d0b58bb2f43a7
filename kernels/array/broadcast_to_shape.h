// The shape of BroadcastTo on any device: the target shape (a host vector,
// input 1) read and checked against the input, NumPy style, and the input's
// strides in the target's dims, with TensorFlow's errors (naming the node).
#pragma once

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {

struct BroadcastToShape {
  TensorShape output;
  DimVector strides;  // input element stride per output dim, 0 where repeated
};

inline Status ComputeBroadcastToShape(OpKernelContext* ctx, const Tensor& in,
                                      BroadcastToShape* out) {
  DimVector dims;
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, 1, "shape", &dims));
  TensorShape& target = out->output;
  AF_RETURN_IF_ERROR(ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), &target)));
  const int rank = target.dims(), lead = rank - in.dims();
  if (lead < 0)
    return ctx->NodeError(
        errors::InvalidArgument("Rank of input (", in.dims(),
                                ") must be no greater than rank of output shape (", rank, ")."));
  const DimVector in_strides = DenseStrides(in.shape());
  out->strides.clear();
  out->strides.resize(rank, 0);
  for (int i = 0; i < in.dims(); ++i) {
    const int64_t have = in.dim_size(i), want = target.dim_size(lead + i);
    if (have != want && have != 1)
      return ctx->NodeError(errors::InvalidArgument("Unable to broadcast tensor of shape ",
                                                    in.shape().DebugString(),
                                                    " to tensor of shape ", target.DebugString()));
    out->strides[lead + i] = have == 1 ? 0 : in_strides[i];
  }
  return Status::OK();
}

}  // namespace af
