// 2-D convolution and its two gradients. Filters are [height, width,
// in_channels, out_channels] in every data_format.
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "core/window_geometry.h"

namespace af {
namespace {

constexpr const char* kPaddingWithExplicit = "padding: {'SAME', 'VALID', 'EXPLICIT'}";
constexpr const char* kDataFormat = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";

// One output dim of a windowed op, unknown when either input is.
Status OutputDim(InferenceContext* c, int64_t input, int64_t window, int64_t dilation,
                 int64_t stride, Padding padding, int64_t before, int64_t after, int64_t* out) {
  if (input < 0 || window < 0) {
    *out = -1;
    return Status::OK();
  }
  WindowDim d;
  AF_RETURN_IF_ERROR(
      c->Error(ComputeWindowDim(input, window, dilation, stride, padding, before, after, &d)));
  *out = d.output;
  return Status::OK();
}

Status Conv2DShape(InferenceContext* c) {
  Window2D w;
  AF_RETURN_IF_ERROR(c->Error(ParseConv2DAttrs(c->node_def(), &w)));
  PartialTensorShape input, filter;
  AF_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  AF_RETURN_IF_ERROR(c->WithRank(1, 4, &filter));
  const int64_t in_depth = input.dim_size(ChannelDim(w.format));
  const int64_t filter_depth = filter.dim_size(2);
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth)
    return c->InvalidArgument("input and filter must have the same depth: ", in_depth, " vs ",
                              filter_depth);
  int64_t out_h, out_w;
  AF_RETURN_IF_ERROR(OutputDim(c, input.dim_size(HeightDim(w.format)), filter.dim_size(0),
                               w.dilation_h, w.stride_h, w.padding, w.pad_top, w.pad_bottom,
                               &out_h));
  AF_RETURN_IF_ERROR(OutputDim(c, input.dim_size(WidthDim(w.format)), filter.dim_size(1),
                               w.dilation_w, w.stride_w, w.padding, w.pad_left, w.pad_right,
                               &out_w));
  const int64_t batch = input.dim_size(0), out_depth = filter.dim_size(3);
  c->set_output(0, w.format == TensorFormat::kNHWC
                       ? PartialTensorShape({batch, out_h, out_w, out_depth})
                       : PartialTensorShape({batch, out_depth, out_h, out_w}));
  return Status::OK();
}

// Conv2DBackpropInput: input_sizes holds all 4 dims, or only the 2 spatial
// ones, in which case batch comes from out_backprop and depth from filter.
Status Conv2DBackpropInputShape(InferenceContext* c) {
  Window2D w;
  AF_RETURN_IF_ERROR(c->Error(ParseConv2DAttrs(c->node_def(), &w)));
  PartialTensorShape sizes, filter, grad;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &sizes));
  AF_RETURN_IF_ERROR(c->WithRank(1, 4, &filter));
  AF_RETURN_IF_ERROR(c->WithRank(2, 4, &grad));
  const int64_t n = sizes.dim_size(0);
  if (n >= 0 && n != 4 && n != 2)
    return c->InvalidArgument("input_sizes must have 4 or 2 elements, got ", n);
  PartialTensorShape from_tensor;
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &from_tensor));
  if (n == 2 || (!from_tensor.unknown_rank() && from_tensor.dims() == 2)) {
    const int64_t batch = grad.dim_size(0), depth = filter.dim_size(2);
    const int64_t h = from_tensor.unknown_rank() ? -1 : from_tensor.dim_size(0);
    const int64_t wd = from_tensor.unknown_rank() ? -1 : from_tensor.dim_size(1);
    c->set_output(0, w.format == TensorFormat::kNHWC ? PartialTensorShape({batch, h, wd, depth})
                                                     : PartialTensorShape({batch, depth, h, wd}));
    return Status::OK();
  }
  if (from_tensor.unknown_rank()) from_tensor = PartialTensorShape::UnknownOfRank(4);
  c->set_output(0, std::move(from_tensor));
  return Status::OK();
}

Status Conv2DBackpropFilterShape(InferenceContext* c) {
  Window2D w;
  AF_RETURN_IF_ERROR(c->Error(ParseConv2DAttrs(c->node_def(), &w)));
  PartialTensorShape sizes, input, grad, out;
  AF_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &sizes));
  AF_RETURN_IF_ERROR(c->WithRank(2, 4, &grad));
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (out.unknown_rank()) out = PartialTensorShape::UnknownOfRank(4);
  if (out.dims() != 4)
    return c->InvalidArgument("filter_sizes must have 4 elements, got ", out.dims());
  c->set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(kPaddingWithExplicit)
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DShape)
    .Doc("2-D convolution (cross-correlation) of input with filter.");

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(kPaddingWithExplicit)
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropInputShape)
    .Doc("Gradient of Conv2D with respect to its input.");

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(kPaddingWithExplicit)
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropFilterShape)
    .Doc("Gradient of Conv2D with respect to its filter.");

}  // namespace af
