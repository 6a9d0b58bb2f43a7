#include "kernels/nn/pool_dims.h"

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

}  // namespace af
