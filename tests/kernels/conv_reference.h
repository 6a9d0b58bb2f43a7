// Double-precision reference definitions of Conv2D and its gradients for the
// kernel tests, written straight from the definitions (independently of
// the kernels' own geometry helpers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/op_test_util.h"

namespace af::test {

// One convolution: shapes in `format` order, attrs as the node carries them.
struct ConvCase {
  ConvCase(std::string name, TensorShape input, TensorShape filter,
           std::vector<int64_t> strides = {1, 1, 1, 1}, std::string padding = "SAME",
           std::vector<int64_t> dilations = {1, 1, 1, 1},
           std::vector<int64_t> explicit_paddings = {}, std::string format = "NHWC")
      : name(std::move(name)),
        input(std::move(input)),
        filter(std::move(filter)),
        strides(std::move(strides)),
        padding(std::move(padding)),
        dilations(std::move(dilations)),
        explicit_paddings(std::move(explicit_paddings)),
        format(std::move(format)) {}

  std::string name;
  TensorShape input;   // NHWC or NCHW
  TensorShape filter;  // HWIO
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations;
  std::vector<int64_t> explicit_paddings;  // 8 values when padding is EXPLICIT
  std::string format;
};

// Geometry of one spatial dim from the TensorFlow definition.
struct RefDim {
  int64_t in = 0, window = 0, stride = 1, dilation = 1, out = 0, pad = 0;
};

inline RefDim MakeRefDim(int64_t in, int64_t window, int64_t stride, int64_t dilation,
                         const std::string& padding, int64_t pad_before, int64_t pad_after) {
  RefDim d{in, window, stride, dilation, 0, 0};
  const int64_t eff = (window - 1) * dilation + 1;
  if (padding == "VALID") {
    d.out = (in - eff) / stride + 1;
  } else if (padding == "SAME") {
    d.out = (in + stride - 1) / stride;
    d.pad = std::max<int64_t>(0, (d.out - 1) * stride + eff - in) / 2;
  } else {
    d.out = (in + pad_before + pad_after - eff) / stride + 1;
    d.pad = pad_before;
  }
  return d;
}

// The convolution's geometry and index helpers.
struct RefConv {
  bool nhwc = true;
  int64_t n = 0, ic = 0, oc = 0;
  RefDim h, w;

  explicit RefConv(const ConvCase& c) {
    nhwc = c.format == "NHWC";
    const int hd = nhwc ? 1 : 2, wd = nhwc ? 2 : 3, cd = nhwc ? 3 : 1;
    n = c.input.dim_size(0);
    ic = c.input.dim_size(cd);
    oc = c.filter.dim_size(3);
    const auto& p = c.explicit_paddings;
    h = MakeRefDim(c.input.dim_size(hd), c.filter.dim_size(0), c.strides[hd], c.dilations[hd],
                   c.padding, p.empty() ? 0 : p[2 * hd], p.empty() ? 0 : p[2 * hd + 1]);
    w = MakeRefDim(c.input.dim_size(wd), c.filter.dim_size(1), c.strides[wd], c.dilations[wd],
                   c.padding, p.empty() ? 0 : p[2 * wd], p.empty() ? 0 : p[2 * wd + 1]);
  }
  TensorShape OutputShape() const {
    return nhwc ? TensorShape{n, h.out, w.out, oc} : TensorShape{n, oc, h.out, w.out};
  }
  int64_t In(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return nhwc ? ((b * h.in + y) * w.in + x) * ic + c : ((b * ic + c) * h.in + y) * w.in + x;
  }
  int64_t Out(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return nhwc ? ((b * h.out + y) * w.out + x) * oc + c : ((b * oc + c) * h.out + y) * w.out + x;
  }
  int64_t Filter(int64_t fy, int64_t fx, int64_t i, int64_t o) const {
    return ((fy * w.window + fx) * ic + i) * oc + o;
  }
  // fn(b, oy, ox, fy, fx, iy, ix) for every tap inside the input.
  template <typename Fn>
  void Taps(Fn fn) const {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < h.out; ++oy)
        for (int64_t ox = 0; ox < w.out; ++ox)
          for (int64_t fy = 0; fy < h.window; ++fy)
            for (int64_t fx = 0; fx < w.window; ++fx) {
              const int64_t iy = oy * h.stride + fy * h.dilation - h.pad;
              const int64_t ix = ox * w.stride + fx * w.dilation - w.pad;
              if (iy >= 0 && iy < h.in && ix >= 0 && ix < w.in) fn(b, oy, ox, fy, fx, iy, ix);
            }
  }
};

// output[b, oy, ox, o] = sum input[b, iy, ix, i] * filter[fy, fx, i, o].
inline std::vector<double> RefConvForward(const ConvCase& c, const Tensor& input,
                                          const Tensor& filter) {
  const RefConv g(c);
  std::vector<double> out(g.OutputShape().num_elements(), 0.0);
  g.Taps([&](int64_t b, int64_t oy, int64_t ox, int64_t fy, int64_t fx, int64_t iy, int64_t ix) {
    for (int64_t o = 0; o < g.oc; ++o)
      for (int64_t i = 0; i < g.ic; ++i)
        out[g.Out(b, oy, ox, o)] += ValueAsDouble(input, g.In(b, iy, ix, i)) *
                                    ValueAsDouble(filter, g.Filter(fy, fx, i, o));
  });
  return out;
}

// d(sum(out_backprop * conv(input, filter))) / d input.
inline std::vector<double> RefConvBackpropInput(const ConvCase& c, const Tensor& filter,
                                                const Tensor& out_backprop) {
  const RefConv g(c);
  std::vector<double> out(c.input.num_elements(), 0.0);
  g.Taps([&](int64_t b, int64_t oy, int64_t ox, int64_t fy, int64_t fx, int64_t iy, int64_t ix) {
    for (int64_t o = 0; o < g.oc; ++o)
      for (int64_t i = 0; i < g.ic; ++i)
        out[g.In(b, iy, ix, i)] += ValueAsDouble(out_backprop, g.Out(b, oy, ox, o)) *
                                   ValueAsDouble(filter, g.Filter(fy, fx, i, o));
  });
  return out;
}

// d(sum(out_backprop * conv(input, filter))) / d filter.
inline std::vector<double> RefConvBackpropFilter(const ConvCase& c, const Tensor& input,
                                                 const Tensor& out_backprop) {
  const RefConv g(c);
  std::vector<double> out(c.filter.num_elements(), 0.0);
  g.Taps([&](int64_t b, int64_t oy, int64_t ox, int64_t fy, int64_t fx, int64_t iy, int64_t ix) {
    for (int64_t o = 0; o < g.oc; ++o)
      for (int64_t i = 0; i < g.ic; ++i)
        out[g.Filter(fy, fx, i, o)] += ValueAsDouble(input, g.In(b, iy, ix, i)) *
                                       ValueAsDouble(out_backprop, g.Out(b, oy, ox, o));
  });
  return out;
}

// Sets the attrs of `c` on a Conv2D-family runner.
inline KernelRunner& WithConvAttrs(KernelRunner& r, const ConvCase& c) {
  r.Attr("strides", c.strides).Attr("padding", c.padding).Attr("dilations", c.dilations);
  r.Attr("data_format", c.format);
  if (!c.explicit_paddings.empty()) r.Attr("explicit_paddings", c.explicit_paddings);
  return r;
}

inline Tensor Int32Vector(const TensorShape& s) {
  std::vector<int32_t> v;
  for (int d = 0; d < s.dims(); ++d) v.push_back(static_cast<int32_t>(s.dim_size(d)));
  return Tensor::FromVector<int32_t>(v);
}

}  // namespace af::test
