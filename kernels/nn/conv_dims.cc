#include "kernels/nn/conv_dims.h"

#include <vector>

#include "core/op_kernel.h"

namespace af {

Status ComputeConv2DDims(const Window2D& window, const TensorShape& input,
                         const TensorShape& filter, Conv2DDims* dims) {
  if (input.dims() != 4)
    return errors::InvalidArgument("input must be 4-dimensional: ", input.DebugString());
  if (filter.dims() != 4)
    return errors::InvalidArgument("filter must be 4-dimensional: ", filter.DebugString());
  Conv2DDims d;
  d.format = window.format;
  d.batch = input.dim_size(BatchDim(d.format));
  d.in_h = input.dim_size(HeightDim(d.format));
  d.in_w = input.dim_size(WidthDim(d.format));
  d.in_depth = input.dim_size(ChannelDim(d.format));
  d.filter_h = filter.dim_size(0);
  d.filter_w = filter.dim_size(1);
  d.out_depth = filter.dim_size(3);
  if (filter.dim_size(2) != d.in_depth)
    return errors::InvalidArgument("input and filter must have the same depth: ", d.in_depth,
                                   " vs ", filter.dim_size(2));
  if (d.filter_h == 0 || d.filter_w == 0)
    return errors::InvalidArgument("filter must have non-zero spatial dims: ",
                                   filter.DebugString());
  WindowDim rows, cols;
  AF_RETURN_IF_ERROR(ComputeWindow2D(window, d.in_h, d.in_w, d.filter_h, d.filter_w, &rows, &cols));
  d.out_h = rows.output;
  d.out_w = cols.output;
  d.pad_top = rows.pad_before;
  d.pad_bottom = rows.pad_after;
  d.pad_left = cols.pad_before;
  d.pad_right = cols.pad_after;
  d.stride_h = window.stride_h;
  d.stride_w = window.stride_w;
  d.dilation_h = window.dilation_h;
  d.dilation_w = window.dilation_w;
  *dims = d;
  return Status::OK();
}

Status ShapeFromSizesInput(const char* op, const char* input_name, const Tensor& sizes,
                           TensorFormat format, int64_t batch, int64_t depth, TensorShape* out) {
  if (sizes.dims() != 1)
    return errors::InvalidArgument(op, ": ", input_name, " input must be 1-dim, not ",
                                   sizes.dims());
  if (sizes.dtype() != DT_INT32)
    return errors::InvalidArgument(op, ": ", input_name, " must be int32, not ",
                                   DataTypeString(sizes.dtype()));
  const int32_t* v = sizes.data<int32_t>();
  std::vector<int64_t> dims;
  if (sizes.NumElements() == 4) {
    dims.assign(v, v + 4);
  } else if (sizes.NumElements() == 2 && batch >= 0) {
    const TensorShape s = MakeShape4D(format, batch, v[0], v[1], depth);
    dims = s.dim_vector();
  } else {
    return errors::InvalidArgument(op, ": ", input_name, " must have ", batch >= 0 ? "4 or 2" : "4",
                                   " elements, got ", sizes.NumElements());
  }
  for (int64_t d : dims)
    if (d < 0)
      return errors::InvalidArgument(op, ": ", input_name,
                                     " has a negative dimension: ", sizes.DebugString());
  return TensorShape::Build(dims, out);
}

Status CheckOutBackprop(const char* op, const Conv2DDims& dims, const TensorShape& out_backprop) {
  if (out_backprop.dims() != 4)
    return errors::InvalidArgument(op, ": out_backprop must be 4-dimensional, got ",
                                   out_backprop.DebugString());
  const TensorShape want = dims.OutputShape();
  if (out_backprop != want)
    return errors::InvalidArgument(
        op, ": out_backprop has shape ", out_backprop.DebugString(),
        " but the convolution of input ", dims.InputShape().DebugString(), " with filter ",
        dims.FilterShape().DebugString(), " produces ", want.DebugString());
  return Status::OK();
}

namespace {

// Output 0 of `shape`, and the work left: none when it is empty, zeros when
// `operands_empty`.
Status AllocateConvOutput(OpKernelContext* ctx, const TensorShape& shape, bool operands_empty,
                          Conv2DCall* call) {
  AF_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &call->out));
  call->work = call->out->NumElements() == 0 ? Conv2DCall::Work::kNothing
               : operands_empty              ? Conv2DCall::Work::kZeros
                                             : Conv2DCall::Work::kCompute;
  return Status::OK();
}

Status BackpropInputDims(const Window2D& window, const Tensor& sizes, const TensorShape& filter,
                         const TensorShape& out_backprop, TensorShape* input_shape,
                         Conv2DDims* dims) {
  constexpr const char* kOp = "Conv2DBackpropInput";
  if (filter.dims() != 4)
    return errors::InvalidArgument(kOp, ": filter must be 4-dimensional: ", filter.DebugString());
  if (out_backprop.dims() != 4)
    return errors::InvalidArgument(kOp, ": out_backprop must be 4-dimensional: ",
                                   out_backprop.DebugString());
  AF_RETURN_IF_ERROR(ShapeFromSizesInput(kOp, "input_sizes", sizes, window.format,
                                         out_backprop.dim_size(0), filter.dim_size(2),
                                         input_shape));
  AF_RETURN_IF_ERROR(ComputeConv2DDims(window, *input_shape, filter, dims));
  return CheckOutBackprop(kOp, *dims, out_backprop);
}

Status BackpropFilterDims(const Window2D& window, const TensorShape& input, const Tensor& sizes,
                          const TensorShape& out_backprop, TensorShape* filter_shape,
                          Conv2DDims* dims) {
  constexpr const char* kOp = "Conv2DBackpropFilter";
  AF_RETURN_IF_ERROR(
      ShapeFromSizesInput(kOp, "filter_sizes", sizes, window.format, -1, -1, filter_shape));
  AF_RETURN_IF_ERROR(ComputeConv2DDims(window, input, *filter_shape, dims));
  return CheckOutBackprop(kOp, *dims, out_backprop);
}

}  // namespace

Status PrepareConv2D(OpKernelContext* ctx, const Window2D& window, Conv2DCall* call) {
  const Tensor& input = ctx->input(0);
  const Tensor& filter = ctx->input(1);
  AF_RETURN_IF_ERROR(
      ctx->NodeError(ComputeConv2DDims(window, input.shape(), filter.shape(), &call->dims)));
  return AllocateConvOutput(ctx, call->dims.OutputShape(),
                            input.NumElements() == 0 || filter.NumElements() == 0, call);
}

Status PrepareConv2DBackpropInput(OpKernelContext* ctx, const Window2D& window,
                                  Conv2DCall* call) {
  const Tensor& filter = ctx->input(1);
  const Tensor& out_backprop = ctx->input(2);
  TensorShape input_shape;
  AF_RETURN_IF_ERROR(ctx->NodeError(BackpropInputDims(
      window, ctx->input(0), filter.shape(), out_backprop.shape(), &input_shape, &call->dims)));
  return AllocateConvOutput(ctx, input_shape,
                            out_backprop.NumElements() == 0 || filter.NumElements() == 0, call);
}

Status PrepareConv2DBackpropFilter(OpKernelContext* ctx, const Window2D& window,
                                   Conv2DCall* call) {
  const Tensor& input = ctx->input(0);
  const Tensor& out_backprop = ctx->input(2);
  TensorShape filter_shape;
  AF_RETURN_IF_ERROR(ctx->NodeError(BackpropFilterDims(
      window, input.shape(), ctx->input(1), out_backprop.shape(), &filter_shape, &call->dims)));
  return AllocateConvOutput(ctx, filter_shape,
                            input.NumElements() == 0 || out_backprop.NumElements() == 0, call);
}

}  // namespace af
