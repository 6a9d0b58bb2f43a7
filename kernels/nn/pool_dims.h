// The sizes of one 2-D pooling, and element offsets in its data format.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/window_geometry.h"

namespace af {

class OpKernelContext;
class Tensor;

struct Pool2DDims {
  TensorFormat format = TensorFormat::kNHWC;
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t ksize_h = 1, ksize_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;

  TensorShape InputShape() const { return MakeShape4D(format, batch, in_h, in_w, depth); }
  TensorShape OutputShape() const { return MakeShape4D(format, batch, out_h, out_w, depth); }

  // Offsets of (n, y, x, channel 0) and the step between channels.
  int64_t InputOffset(int64_t n, int64_t y, int64_t x) const { return Offset(n, y, x, in_h, in_w); }
  int64_t OutputOffset(int64_t n, int64_t y, int64_t x) const {
    return Offset(n, y, x, out_h, out_w);
  }
  int64_t InputChannelStep() const { return nhwc() ? 1 : in_h * in_w; }
  int64_t OutputChannelStep() const { return nhwc() ? 1 : out_h * out_w; }

  // The input rows [*begin, *end) under output row oy (clipped to the
  // input); likewise for columns.
  void Rows(int64_t oy, int64_t* begin, int64_t* end) const {
    Clip(oy * stride_h - pad_top, ksize_h, in_h, begin, end);
  }
  void Cols(int64_t ox, int64_t* begin, int64_t* end) const {
    Clip(ox * stride_w - pad_left, ksize_w, in_w, begin, end);
  }

 private:
  bool nhwc() const { return format == TensorFormat::kNHWC; }
  int64_t Offset(int64_t n, int64_t y, int64_t x, int64_t h, int64_t w) const {
    return nhwc() ? ((n * h + y) * w + x) * depth : (n * depth * h + y) * w + x;
  }
  static void Clip(int64_t start, int64_t size, int64_t limit, int64_t* begin, int64_t* end) {
    *begin = start < 0 ? 0 : start;
    *end = start + size > limit ? limit : start + size;
  }
};

Status ComputePool2DDims(const Window2D& window, const TensorShape& input, Pool2DDims* dims);

// The checks of a pooling kernel on its inputs, on any device, their errors
// naming the node; then output 0 allocated.
//   PreparePool2D (MaxPool, AvgPool): input; the output is the pooled one.
//   PrepareMaxPoolGrad: orig_input, orig_output, grad; the output has
//     orig_input's shape.
//   PrepareAvgPoolGrad: orig_input_shape (int32, in host memory on every
//     device), grad; the output has orig_input_shape.
Status PreparePool2D(OpKernelContext* ctx, const Window2D& window, Pool2DDims* dims,
                     Tensor** out);
Status PrepareMaxPoolGrad(OpKernelContext* ctx, const Window2D& window, Pool2DDims* dims,
                          Tensor** out);
Status PrepareAvgPoolGrad(OpKernelContext* ctx, const Window2D& window, Pool2DDims* dims,
                          Tensor** out);

}  // namespace af
