// The argument checks every UnsortedSegment* kernel makes, in one place so
// that Sum, Max and Min reject the same inputs with the same words
// (TensorFlow's): num_segments a non-negative scalar, data's shape starting
// with segment_ids', and each id below num_segments. Negative ids are not
// errors: TensorFlow drops their rows, and so do the kernels.
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/array/array_kernel_util.h"

namespace af {

// How a segment reduction's output is laid out once its arguments check.
struct SegmentLayout {
  int64_t num_segments = 0;
  int64_t inner = 1;         // elements per row: data dims after segment_ids'
  TensorShape output_shape;  // [num_segments] + data.shape[ids.dims():]
};

// Checks data (input 0), segment_ids (input 1) and num_segments (input 2).
inline Status CheckUnsortedSegmentArgs(OpKernelContext* ctx, SegmentLayout* out) {
  const Tensor& data = ctx->input(0);
  const Tensor& ids = ctx->input(1);
  const Tensor& num = ctx->input(2);
  if (num.dims() != 0)
    return ctx->NodeError(errors::InvalidArgument("num_segments should be a scalar, not shape ",
                                                  num.shape().DebugString()));
  out->num_segments = IntElement(num, 0);
  if (out->num_segments < 0)
    return ctx->NodeError(errors::InvalidArgument("Input num_segments == ", out->num_segments,
                                                  " must not be negative."));
  bool prefix = ids.dims() <= data.dims();
  for (int d = 0; prefix && d < ids.dims(); ++d) prefix = ids.dim_size(d) == data.dim_size(d);
  if (!prefix)
    return ctx->NodeError(errors::InvalidArgument(
        "data.shape = ", data.shape().DebugString(),
        " does not start with segment_ids.shape = ", ids.shape().DebugString()));
  out->output_shape = TensorShape{out->num_segments};
  for (int d = ids.dims(); d < data.dims(); ++d) out->output_shape.AddDim(data.dim_size(d));
  out->inner = DimProduct(data.shape(), ids.dims(), data.dims());
  return Status::OK();
}

// The error for segment_ids' flat element j holding `segment` >= num.
inline Status SegmentIdOutOfRange(OpKernelContext* ctx, const Tensor& ids, int64_t j,
                                  int64_t segment, int64_t num) {
  return ctx->NodeError(errors::InvalidArgument("segment_ids", FlatIndexString(ids.shape(), j),
                                                " = ", segment, " is out of range [0, ", num, ")"));
}

}  // namespace af
