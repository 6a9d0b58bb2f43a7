// 2-D max and average pooling and their gradients.
#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "core/window_geometry.h"

namespace af {
namespace {

// The pooled shape of a 4-D input; unknown dims stay unknown.
Status PoolShape(InferenceContext* c) {
  Window2D w;
  AF_RETURN_IF_ERROR(c->Error(ParsePool2DAttrs(c->node_def(), &w)));
  PartialTensorShape input;
  AF_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  if (input.unknown_rank()) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(4));
    return Status::OK();
  }
  const int64_t in_h = input.dim_size(HeightDim(w.format));
  const int64_t in_w = input.dim_size(WidthDim(w.format));
  int64_t out_h = -1, out_w = -1;
  WindowDim d;
  if (in_h >= 0) {
    AF_RETURN_IF_ERROR(c->Error(
        ComputeWindowDim(in_h, w.ksize_h, 1, w.stride_h, w.padding, w.pad_top, w.pad_bottom, &d)));
    out_h = d.output;
  }
  if (in_w >= 0) {
    AF_RETURN_IF_ERROR(c->Error(
        ComputeWindowDim(in_w, w.ksize_w, 1, w.stride_w, w.padding, w.pad_left, w.pad_right, &d)));
    out_w = d.output;
  }
  const int64_t batch = input.dim_size(0), depth = input.dim_size(ChannelDim(w.format));
  c->set_output(0, w.format == TensorFormat::kNHWC
                       ? PartialTensorShape({batch, out_h, out_w, depth})
                       : PartialTensorShape({batch, depth, out_h, out_w}));
  return Status::OK();
}

// MaxPoolGrad's output has orig_input's shape.
Status MaxPoolGradShape(InferenceContext* c) {
  PartialTensorShape input;
  AF_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  c->set_output(0, std::move(input));
  return Status::OK();
}

// AvgPoolGrad's output shape is the value of orig_input_shape.
Status AvgPoolGradShape(InferenceContext* c) {
  PartialTensorShape sizes, out;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &sizes));
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  if (out.unknown_rank()) out = PartialTensorShape::UnknownOfRank(4);
  if (out.dims() != 4)
    return c->InvalidArgument("orig_input_shape must have 4 elements, got ", out.dims());
  c->set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = "
        "DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(PoolShape)
    .Doc("The maximum of each ksize window of input.");

REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(MaxPoolGradShape)
    .Doc("Routes each window's gradient to the position of its maximum.");

REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(PoolShape)
    .Doc("The mean of each ksize window of value (padding excluded from the count).");

REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPoolGradShape)
    .Doc("Spreads each window's gradient evenly over the window.");

}  // namespace af
