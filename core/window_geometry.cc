#include "core/window_geometry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/node_def_util.h"

namespace af {

Status ParsePadding(std::string_view text, Padding* out) {
  if (text == "VALID")
    *out = Padding::kValid;
  else if (text == "SAME")
    *out = Padding::kSame;
  else if (text == "EXPLICIT")
    *out = Padding::kExplicit;
  else
    return errors::InvalidArgument("Unknown padding type: ", text);
  return Status::OK();
}

Status ParseTensorFormat(std::string_view text, TensorFormat* out) {
  if (text == "NHWC")
    *out = TensorFormat::kNHWC;
  else if (text == "NCHW")
    *out = TensorFormat::kNCHW;
  else
    return errors::InvalidArgument("Invalid data format: ", text);
  return Status::OK();
}

namespace {

// A list(int) attr, or `fallback` when the node leaves it out.
Status IntListOr(const tensorflow::NodeDef& node, std::string_view name,
                 std::vector<int64_t> fallback, std::vector<int64_t>* out) {
  if (!HasNodeAttr(node, name)) {
    *out = std::move(fallback);
    return Status::OK();
  }
  return GetNodeAttr(node, name, out);
}

Status FormatAttr(const tensorflow::NodeDef& node, TensorFormat* format) {
  std::string text = "NHWC";
  if (HasNodeAttr(node, "data_format")) AF_RETURN_IF_ERROR(GetNodeAttr(node, "data_format", &text));
  return ParseTensorFormat(text, format);
}

// padding and, for EXPLICIT, the eight explicit_paddings (pairs per dim in
// data_format order; only the spatial pairs may be non-zero).
Status PaddingAttrs(const tensorflow::NodeDef& node, Window2D* w) {
  std::string text;
  AF_RETURN_IF_ERROR(GetNodeAttr(node, "padding", &text));
  AF_RETURN_IF_ERROR(ParsePadding(text, &w->padding));
  std::vector<int64_t> pads;
  AF_RETURN_IF_ERROR(IntListOr(node, "explicit_paddings", {}, &pads));
  if (w->padding != Padding::kExplicit) {
    if (!pads.empty())
      return errors::InvalidArgument(
          "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    return Status::OK();
  }
  if (pads.size() != 8)
    return errors::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                   pads.size());
  for (int64_t p : pads)
    if (p < 0)
      return errors::InvalidArgument("All elements of explicit_paddings must be nonnegative");
  const int n = 2 * BatchDim(w->format), c = 2 * ChannelDim(w->format);
  if (pads[n] != 0 || pads[n + 1] != 0 || pads[c] != 0 || pads[c + 1] != 0)
    return errors::InvalidArgument(
        "Nonzero explicit padding in the batch or depth dimensions is not supported");
  const int h = 2 * HeightDim(w->format), wd = 2 * WidthDim(w->format);
  w->pad_top = pads[h];
  w->pad_bottom = pads[h + 1];
  w->pad_left = pads[wd];
  w->pad_right = pads[wd + 1];
  return Status::OK();
}

}  // namespace

Status ParseConv2DAttrs(const tensorflow::NodeDef& node, Window2D* out) {
  Window2D w;
  AF_RETURN_IF_ERROR(FormatAttr(node, &w.format));
  std::vector<int64_t> strides, dilations;
  AF_RETURN_IF_ERROR(GetNodeAttr(node, "strides", &strides));
  if (strides.size() != 4)
    return errors::InvalidArgument("Sliding window strides field must specify 4 dimensions");
  const int n = BatchDim(w.format), c = ChannelDim(w.format);
  const int h = HeightDim(w.format), wd = WidthDim(w.format);
  if (strides[n] != 1 || strides[c] != 1)
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  if (strides[h] <= 0 || strides[wd] <= 0)
    return errors::InvalidArgument("Row and column strides should be larger than 0.");
  AF_RETURN_IF_ERROR(IntListOr(node, "dilations", {1, 1, 1, 1}, &dilations));
  if (dilations.size() != 4)
    return errors::InvalidArgument("Sliding window dilations field must specify 4 dimensions");
  if (dilations[n] != 1 || dilations[c] != 1)
    return errors::InvalidArgument(
        "Current implementation does not yet support dilations in the batch and depth "
        "dimensions.");
  if (dilations[h] <= 0 || dilations[wd] <= 0)
    return errors::InvalidArgument("Dilated rates should be larger than 0.");
  w.stride_h = strides[h];
  w.stride_w = strides[wd];
  w.dilation_h = dilations[h];
  w.dilation_w = dilations[wd];
  AF_RETURN_IF_ERROR(PaddingAttrs(node, &w));
  *out = w;
  return Status::OK();
}

Status ParsePool2DAttrs(const tensorflow::NodeDef& node, Window2D* out) {
  Window2D w;
  AF_RETURN_IF_ERROR(FormatAttr(node, &w.format));
  std::vector<int64_t> ksize, strides;
  AF_RETURN_IF_ERROR(GetNodeAttr(node, "ksize", &ksize));
  AF_RETURN_IF_ERROR(GetNodeAttr(node, "strides", &strides));
  if (ksize.size() != 4)
    return errors::InvalidArgument("Sliding window ksize field must specify 4 dimensions");
  if (strides.size() != 4)
    return errors::InvalidArgument("Sliding window stride field must specify 4 dimensions");
  for (int64_t k : ksize)
    if (k <= 0) return errors::InvalidArgument("Sliding window ksize must be positive.");
  for (int64_t s : strides)
    if (s <= 0) return errors::InvalidArgument("Sliding window stride must be positive.");
  const int n = BatchDim(w.format), c = ChannelDim(w.format);
  if (ksize[n] != 1 || strides[n] != 1)
    return errors::Unimplemented("Pooling is not yet supported on the batch dimension.");
  if (ksize[c] != 1 || strides[c] != 1)
    return errors::Unimplemented("Pooling is not yet supported on the depth dimension.");
  w.ksize_h = ksize[HeightDim(w.format)];
  w.ksize_w = ksize[WidthDim(w.format)];
  w.stride_h = strides[HeightDim(w.format)];
  w.stride_w = strides[WidthDim(w.format)];
  AF_RETURN_IF_ERROR(PaddingAttrs(node, &w));
  *out = w;
  return Status::OK();
}

Status ComputeWindowDim(int64_t input, int64_t window, int64_t dilation, int64_t stride,
                        Padding padding, int64_t explicit_before, int64_t explicit_after,
                        WindowDim* out) {
  if (stride <= 0) return errors::InvalidArgument("Stride must be > 0, but got ", stride);
  if (dilation < 1)
    return errors::InvalidArgument("Dilation rate must be >= 1, but got ", dilation);
  const int64_t effective = (window - 1) * dilation + 1;
  WindowDim d;
  switch (padding) {
    case Padding::kValid:
      d.output = (input - effective + stride) / stride;
      break;
    case Padding::kSame: {
      d.output = (input + stride - 1) / stride;
      const int64_t needed = std::max<int64_t>(0, (d.output - 1) * stride + effective - input);
      d.pad_before = needed / 2;
      d.pad_after = needed - d.pad_before;
      break;
    }
    case Padding::kExplicit:
      d.output = (input + explicit_before + explicit_after - effective + stride) / stride;
      d.pad_before = explicit_before;
      d.pad_after = explicit_after;
      break;
  }
  if (d.output < 0)
    return errors::InvalidArgument("Computed output size would be negative: ", d.output,
                                   " [input_size: ", input, ", effective_filter_size: ", effective,
                                   ", stride: ", stride, "]");
  *out = d;
  return Status::OK();
}

Status ComputeWindow2D(const Window2D& w, int64_t in_h, int64_t in_w, int64_t window_h,
                       int64_t window_w, WindowDim* rows, WindowDim* cols) {
  AF_RETURN_IF_ERROR(ComputeWindowDim(in_h, window_h, w.dilation_h, w.stride_h, w.padding,
                                      w.pad_top, w.pad_bottom, rows));
  return ComputeWindowDim(in_w, window_w, w.dilation_w, w.stride_w, w.padding, w.pad_left,
                          w.pad_right, cols);
}

TensorShape MakeShape4D(TensorFormat format, int64_t n, int64_t h, int64_t w, int64_t c) {
  return format == TensorFormat::kNHWC ? TensorShape{n, h, w, c} : TensorShape{n, c, h, w};
}

}  // namespace af
