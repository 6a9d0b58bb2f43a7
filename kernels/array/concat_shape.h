// The shapes of Concat and ConcatV2 on any device: the axis input read and
// checked, every value input checked against the first, and the output
// shape, with TensorFlow's errors (naming the node).
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {

struct ConcatShape {
  int axis = 0;        // in [0, rank)
  TensorShape output;  // the first value's shape, the axis dims summed
  int64_t outer = 1;   // product of the output dims before the axis
};

// Where a Concat kernel's inputs are: the axis (a host scalar) first, then
// the values (Concat), or the values, then the axis (ConcatV2).
struct ConcatInputs {
  ConcatInputs(int num_inputs, bool axis_first)
      : axis(axis_first ? 0 : num_inputs - 1), first(axis_first ? 1 : 0), n(num_inputs - 1) {}
  int axis = 0;   // the axis input
  int first = 0;  // the values are inputs [first, first + n)
  int n = 0;
};

inline Status ComputeConcatShape(OpKernelContext* ctx, const ConcatInputs& inputs,
                                 ConcatShape* out) {
  const int first = inputs.first, n = inputs.n;
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(IntScalarInput(ctx, inputs.axis, "concat axis", &axis));
  const Tensor& first_value = ctx->input(first);
  const int rank = first_value.dims();
  if (rank <= 0)
    return ctx->NodeError(
        errors::InvalidArgument("Can't concatenate scalars (use tf.stack instead)"));
  if (axis < -rank || axis >= rank)
    return ctx->NodeError(
        errors::InvalidArgument("ConcatOp : Expected concatenating dimensions in the range [",
                                -rank, ", ", rank, "), but got ", axis));
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  int64_t axis_total = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx->input(first + i);
    if (t.dims() != rank)
      return ctx->NodeError(errors::InvalidArgument(
          "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
          first_value.shape().DebugString(), " vs. shape[", i, "] = ", t.shape().DebugString()));
    for (int d = 0; d < rank; ++d) {
      if (d != a && t.dim_size(d) != first_value.dim_size(d))
        return ctx->NodeError(errors::InvalidArgument(
            "ConcatOp : Dimensions of inputs should match: shape[0] = ",
            first_value.shape().DebugString(), " vs. shape[", i, "] = ",
            t.shape().DebugString()));
    }
    axis_total += t.dim_size(a);
  }
  out->axis = a;
  out->output = first_value.shape();
  out->output.set_dim(a, axis_total);
  out->outer = DimProduct(out->output, 0, a);
  return Status::OK();
}

}  // namespace af
