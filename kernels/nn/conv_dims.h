// The sizes of one 2-D convolution, checked against the node's attrs. The
// forward kernel derives them from input and filter; the gradient kernels
// from the sizes input and check out_backprop against them.
#pragma once

#include <array>
#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "core/window_geometry.h"

namespace af {

class OpKernelContext;

struct Conv2DDims {
  TensorFormat format = TensorFormat::kNHWC;
  int64_t batch = 0, in_h = 0, in_w = 0, in_depth = 0;
  int64_t filter_h = 0, filter_w = 0, out_depth = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  TensorShape InputShape() const { return MakeShape4D(format, batch, in_h, in_w, in_depth); }
  TensorShape OutputShape() const { return MakeShape4D(format, batch, out_h, out_w, out_depth); }
  TensorShape FilterShape() const { return TensorShape{filter_h, filter_w, in_depth, out_depth}; }
  // What varies between calls of one kernel (the attrs are fixed per node).
  std::array<int64_t, 7> CacheKey() const {
    return {batch, in_h, in_w, in_depth, filter_h, filter_w, out_depth};
  }
  double Flops() const {
    return 2.0 * static_cast<double>(batch * out_h * out_w * out_depth) *
           static_cast<double>(filter_h * filter_w * in_depth);
  }
};

// From the input and filter tensors' shapes (Conv2D, and the gradient
// kernels once their sizes input is read).
Status ComputeConv2DDims(const Window2D& window, const TensorShape& input,
                         const TensorShape& filter, Conv2DDims* dims);

// `op` prefixes the messages below as TensorFlow's do
// ("Conv2DBackpropInput: ...").
//
// The shape held by a 1-D int32 sizes input (input_sizes or filter_sizes).
// input_sizes may give only the 2 spatial dims; `batch` and `depth` fill the
// rest then.
Status ShapeFromSizesInput(const char* op, const char* input_name, const Tensor& sizes,
                           TensorFormat format, int64_t batch, int64_t depth, TensorShape* out);

// out_backprop must have exactly the shape the convolution produces.
Status CheckOutBackprop(const char* op, const Conv2DDims& dims, const TensorShape& out_backprop);

// One call of a Conv2D-family kernel, on any device: its dims, its output
// (allocated) and what is left for the kernel to do.
struct Conv2DCall {
  enum class Work {
    kNothing,  // the output is empty
    kZeros,    // an operand is empty: the output is a sum of no terms
    kCompute,  // the convolution itself
  };
  Conv2DDims dims;
  Tensor* out = nullptr;
  Work work = Work::kNothing;
};

// The checks of Conv2D (inputs input, filter), Conv2DBackpropInput
// (input_sizes, filter, out_backprop) and Conv2DBackpropFilter (input,
// filter_sizes, out_backprop) on the kernel's inputs, their errors naming
// the node; then output 0 allocated. The sizes inputs are int32, in host
// memory on every device.
Status PrepareConv2D(OpKernelContext* ctx, const Window2D& window, Conv2DCall* call);
Status PrepareConv2DBackpropInput(OpKernelContext* ctx, const Window2D& window, Conv2DCall* call);
Status PrepareConv2DBackpropFilter(OpKernelContext* ctx, const Window2D& window, Conv2DCall* call);

}  // namespace af
