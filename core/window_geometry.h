// Geometry of 2-D sliding-window ops (Conv2D and its gradients, pooling):
// their attrs parsed and checked once, and TensorFlow's rule for the output
// size and padding of one spatial dimension. Shape functions and kernels
// both use it, so a graph's inferred shapes and its computed tensors agree.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "proto/node_def.pb.h"

namespace af {

enum class Padding { kValid, kSame, kExplicit };
enum class TensorFormat { kNHWC, kNCHW };

Status ParsePadding(std::string_view text, Padding* out);
Status ParseTensorFormat(std::string_view text, TensorFormat* out);

// Positions of the batch, spatial and channel dims of a 4-D tensor.
constexpr int BatchDim(TensorFormat) { return 0; }
constexpr int HeightDim(TensorFormat f) { return f == TensorFormat::kNHWC ? 1 : 2; }
constexpr int WidthDim(TensorFormat f) { return f == TensorFormat::kNHWC ? 2 : 3; }
constexpr int ChannelDim(TensorFormat f) { return f == TensorFormat::kNHWC ? 3 : 1; }

// The attrs of a 2-D window op, validated. Pooling fills ksize; convolution
// takes its window from the filter tensor.
struct Window2D {
  TensorFormat format = TensorFormat::kNHWC;
  Padding padding = Padding::kValid;
  int64_t ksize_h = 1, ksize_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  // Only for Padding::kExplicit.
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

// strides, padding, explicit_paddings, data_format and dilations of Conv2D,
// Conv2DBackpropInput and Conv2DBackpropFilter. Attrs with defaults may be
// absent. Errors carry TensorFlow's messages, without the node's name.
Status ParseConv2DAttrs(const tensorflow::NodeDef& node, Window2D* out);
// ksize, strides, padding, explicit_paddings (MaxPool) and data_format of
// the pooling ops and their gradients.
Status ParsePool2DAttrs(const tensorflow::NodeDef& node, Window2D* out);

// One spatial dimension of a windowed op.
struct WindowDim {
  int64_t output = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// TensorFlow's windowed output size: VALID keeps windows inside the input,
// SAME gives ceil(input / stride) outputs and splits the padding with the
// smaller half first, EXPLICIT uses the given pads. INVALID_ARGUMENT when
// the output would be negative.
Status ComputeWindowDim(int64_t input, int64_t window, int64_t dilation, int64_t stride,
                        Padding padding, int64_t explicit_before, int64_t explicit_after,
                        WindowDim* out);

// Both spatial dims of a 4-D input in `w.format`; the window is
// (window_h, window_w) (the filter's for convolution, ksize for pooling).
Status ComputeWindow2D(const Window2D& w, int64_t in_h, int64_t in_w, int64_t window_h,
                       int64_t window_w, WindowDim* rows, WindowDim* cols);

// A 4-D shape in `format` from its logical dims.
TensorShape MakeShape4D(TensorFormat format, int64_t n, int64_t h, int64_t w, int64_t c);

}  // namespace af
