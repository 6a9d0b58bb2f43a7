// Direct loops for Conv2D and its gradients, for the types oneDNN does not
// take (double, int32). Shapes here are small (gradient checks, odd graphs),
// so clarity wins over speed; the loops still keep the channel dims
// innermost so NHWC runs over contiguous memory.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/nn/conv_dims.h"

namespace af::conv_loops {

// Element offsets of activations in the dims' format and of HWIO filters.
struct Layout {
  explicit Layout(const Conv2DDims& d) : d(d) {}
  int64_t Input(int64_t n, int64_t y, int64_t x, int64_t c) const {
    return Activation(n, y, x, c, d.in_h, d.in_w, d.in_depth);
  }
  int64_t Output(int64_t n, int64_t y, int64_t x, int64_t c) const {
    return Activation(n, y, x, c, d.out_h, d.out_w, d.out_depth);
  }
  // Step between consecutive channels.
  int64_t InputChannelStep() const { return nhwc() ? 1 : d.in_h * d.in_w; }
  int64_t OutputChannelStep() const { return nhwc() ? 1 : d.out_h * d.out_w; }
  int64_t Filter(int64_t fy, int64_t fx, int64_t ic) const {
    return ((fy * d.filter_w + fx) * d.in_depth + ic) * d.out_depth;
  }

 private:
  bool nhwc() const { return d.format == TensorFormat::kNHWC; }
  int64_t Activation(int64_t n, int64_t y, int64_t x, int64_t c, int64_t h, int64_t w,
                     int64_t depth) const {
    return nhwc() ? ((n * h + y) * w + x) * depth + c : ((n * depth + c) * h + y) * w + x;
  }
  const Conv2DDims& d;
};

// Calls fn(n, oy, ox, fy, fx, iy, ix) for every filter tap that lands
// inside the input (padding contributes nothing).
template <typename Fn>
void ForEachTap(const Conv2DDims& d, Fn&& fn) {
  for (int64_t n = 0; n < d.batch; ++n)
    for (int64_t oy = 0; oy < d.out_h; ++oy)
      for (int64_t ox = 0; ox < d.out_w; ++ox)
        for (int64_t fy = 0; fy < d.filter_h; ++fy) {
          const int64_t iy = oy * d.stride_h - d.pad_top + fy * d.dilation_h;
          if (iy < 0 || iy >= d.in_h) continue;
          for (int64_t fx = 0; fx < d.filter_w; ++fx) {
            const int64_t ix = ox * d.stride_w - d.pad_left + fx * d.dilation_w;
            if (ix < 0 || ix >= d.in_w) continue;
            fn(n, oy, ox, fy, fx, iy, ix);
          }
        }
}

template <typename T>
void Forward(const Conv2DDims& d, const T* input, const T* filter, T* output) {
  const Layout at(d);
  std::fill(output, output + d.batch * d.out_h * d.out_w * d.out_depth, T(0));
  const int64_t is = at.InputChannelStep(), os = at.OutputChannelStep();
  ForEachTap(
      d, [&](int64_t n, int64_t oy, int64_t ox, int64_t fy, int64_t fx, int64_t iy, int64_t ix) {
        T* out = output + at.Output(n, oy, ox, 0);
        const T* in = input + at.Input(n, iy, ix, 0);
        for (int64_t ic = 0; ic < d.in_depth; ++ic) {
          const T v = in[ic * is];
          const T* f = filter + at.Filter(fy, fx, ic);
          for (int64_t oc = 0; oc < d.out_depth; ++oc) out[oc * os] += v * f[oc];
        }
      });
}

template <typename T>
void BackpropInput(const Conv2DDims& d, const T* filter, const T* out_backprop, T* in_backprop) {
  const Layout at(d);
  std::fill(in_backprop, in_backprop + d.batch * d.in_h * d.in_w * d.in_depth, T(0));
  const int64_t is = at.InputChannelStep(), os = at.OutputChannelStep();
  ForEachTap(
      d, [&](int64_t n, int64_t oy, int64_t ox, int64_t fy, int64_t fx, int64_t iy, int64_t ix) {
        const T* grad = out_backprop + at.Output(n, oy, ox, 0);
        T* in = in_backprop + at.Input(n, iy, ix, 0);
        for (int64_t ic = 0; ic < d.in_depth; ++ic) {
          const T* f = filter + at.Filter(fy, fx, ic);
          T sum = T(0);
          for (int64_t oc = 0; oc < d.out_depth; ++oc) sum += grad[oc * os] * f[oc];
          in[ic * is] += sum;
        }
      });
}

template <typename T>
void BackpropFilter(const Conv2DDims& d, const T* input, const T* out_backprop,
                    T* filter_backprop) {
  const Layout at(d);
  std::fill(filter_backprop, filter_backprop + d.filter_h * d.filter_w * d.in_depth * d.out_depth,
            T(0));
  const int64_t is = at.InputChannelStep(), os = at.OutputChannelStep();
  ForEachTap(
      d, [&](int64_t n, int64_t oy, int64_t ox, int64_t fy, int64_t fx, int64_t iy, int64_t ix) {
        const T* grad = out_backprop + at.Output(n, oy, ox, 0);
        const T* in = input + at.Input(n, iy, ix, 0);
        for (int64_t ic = 0; ic < d.in_depth; ++ic) {
          const T v = in[ic * is];
          T* f = filter_backprop + at.Filter(fy, fx, ic);
          for (int64_t oc = 0; oc < d.out_depth; ++oc) f[oc] += v * grad[oc * os];
        }
      });
}

}  // namespace af::conv_loops
