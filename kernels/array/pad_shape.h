// The shape of Pad and PadV2 on any device: paddings (a host [rank, 2]
// matrix, input 1) and PadV2's constant (input 2) checked, the output shape
// and where the input lands in it, with TensorFlow's errors (naming the
// node).
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {

struct PadShape {
  bool has_constant = false;  // PadV2: input 2 is the (scalar) fill value
  bool no_padding = true;     // every padding 0: the output is the input
  TensorShape output;
  DimVector out_strides;      // dense strides of the output
  int64_t offset = 0;         // the input's first element in the output
};

inline Status ComputePadShape(OpKernelContext* ctx, const Tensor& in, PadShape* out) {
  const Tensor& paddings = ctx->input(1);
  const int rank = in.dims();
  if (paddings.dims() != 2 || paddings.dim_size(1) != 2)
    return ctx->NodeError(errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                                  paddings.shape().DebugString()));
  if (paddings.dim_size(0) != rank)
    return ctx->NodeError(
        errors::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                paddings.shape().DebugString(), " ", in.shape().DebugString()));
  out->has_constant = ctx->num_inputs() > 2;
  if (out->has_constant && ctx->input(2).dims() != 0)
    return ctx->NodeError(errors::InvalidArgument("constant_values must be a scalar. Got: ",
                                                  ctx->input(2).shape().DebugString()));
  out->output = TensorShape();
  out->no_padding = true;
  DimVector before;
  for (int i = 0; i < rank; ++i) {
    const int64_t b = IntElement(paddings, 2 * i), a = IntElement(paddings, 2 * i + 1);
    if (b < 0 || a < 0)
      return ctx->NodeError(errors::InvalidArgument("Paddings must be non-negative: ", b, " ", a));
    out->output.AddDim(in.dim_size(i) + b + a);
    before.push_back(b);
    out->no_padding &= b == 0 && a == 0;
  }
  out->out_strides = DenseStrides(out->output);
  out->offset = 0;
  for (int i = 0; i < rank; ++i) out->offset += before[i] * out->out_strides[i];
  return Status::OK();
}

}  // namespace af
