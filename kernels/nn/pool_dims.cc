#include "kernels/nn/pool_dims.h"

#include "core/op_kernel.h"
#include "kernels/nn/conv_dims.h"

namespace af {

Status ComputePool2DDims(const Window2D& window, const TensorShape& input, Pool2DDims* dims) {
  if (input.dims() != 4)
    return errors::InvalidArgument("input must be 4-dimensional, got ", input.DebugString());
  Pool2DDims d;
  d.format = window.format;
  d.batch = input.dim_size(BatchDim(d.format));
  d.in_h = input.dim_size(HeightDim(d.format));
  d.in_w = input.dim_size(WidthDim(d.format));
  d.depth = input.dim_size(ChannelDim(d.format));
  d.ksize_h = window.ksize_h;
  d.ksize_w = window.ksize_w;
  d.stride_h = window.stride_h;
  d.stride_w = window.stride_w;
  WindowDim rows, cols;
  AF_RETURN_IF_ERROR(ComputeWindow2D(window, d.in_h, d.in_w, d.ksize_h, d.ksize_w, &rows, &cols));
  if (window.padding == Padding::kExplicit &&
      (rows.pad_before >= d.ksize_h || rows.pad_after >= d.ksize_h ||
       cols.pad_before >= d.ksize_w || cols.pad_after >= d.ksize_w))
    return errors::InvalidArgument(
        "Explicit padding must be smaller than the window (ksize) in each spatial dimension");
  d.out_h = rows.output;
  d.out_w = cols.output;
  d.pad_top = rows.pad_before;
  d.pad_left = cols.pad_before;
  *dims = d;
  return Status::OK();
}

namespace {

Status MaxPoolGradDims(const Window2D& window, const TensorShape& orig_input,
                       const TensorShape& orig_output, const TensorShape& grad, Pool2DDims* d) {
  AF_RETURN_IF_ERROR(ComputePool2DDims(window, orig_input, d));
  const TensorShape pooled = d->OutputShape();
  if (orig_output != pooled)
    return errors::InvalidArgument("orig_output has shape ", orig_output.DebugString(),
                                   " but pooling orig_input ", orig_input.DebugString(), " gives ",
                                   pooled.DebugString());
  if (grad != pooled)
    return errors::InvalidArgument("grad has shape ", grad.DebugString(),
                                   " but pooling orig_input ", orig_input.DebugString(), " gives ",
                                   pooled.DebugString());
  return Status::OK();
}

Status AvgPoolGradDims(const Window2D& window, const Tensor& sizes, const TensorShape& grad,
                       TensorShape* input_shape, Pool2DDims* d) {
  AF_RETURN_IF_ERROR(ShapeFromSizesInput("AvgPoolGrad", "orig_input_shape", sizes, window.format,
                                         -1, -1, input_shape));
  AF_RETURN_IF_ERROR(ComputePool2DDims(window, *input_shape, d));
  if (grad != d->OutputShape())
    return errors::InvalidArgument("grad has shape ", grad.DebugString(),
                                   " but pooling an input of ", input_shape->DebugString(),
                                   " gives ", d->OutputShape().DebugString());
  return Status::OK();
}

}  // namespace

Status PreparePool2D(OpKernelContext* ctx, const Window2D& window, Pool2DDims* dims,
                     Tensor** out) {
  AF_RETURN_IF_ERROR(ctx->NodeError(ComputePool2DDims(window, ctx->input(0).shape(), dims)));
  return ctx->allocate_output(0, dims->OutputShape(), out);
}

Status PrepareMaxPoolGrad(OpKernelContext* ctx, const Window2D& window, Pool2DDims* dims,
                          Tensor** out) {
  const TensorShape& orig_input = ctx->input(0).shape();
  AF_RETURN_IF_ERROR(ctx->NodeError(MaxPoolGradDims(window, orig_input, ctx->input(1).shape(),
                                                    ctx->input(2).shape(), dims)));
  return ctx->allocate_output(0, orig_input, out);
}

Status PrepareAvgPoolGrad(OpKernelContext* ctx, const Window2D& window, Pool2DDims* dims,
                          Tensor** out) {
  TensorShape input_shape;
  AF_RETURN_IF_ERROR(ctx->NodeError(
      AvgPoolGradDims(window, ctx->input(0), ctx->input(1).shape(), &input_shape, dims)));
  return ctx->allocate_output(0, input_shape, out);
}

}  // namespace af
