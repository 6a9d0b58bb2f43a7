// Batch normalization sees x as [outer, channels, inner]: channels last
// (NHWC, NDHWC) gives inner = 1; channels first (NCHW, NCDHW) gives
// outer = batch and inner = the spatial size. Per-channel sums accumulate
// in double so that float statistics over millions of elements keep their
// precision.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor_shape.h"

namespace af {

struct NormLayout {
  int64_t outer = 0, channels = 0, inner = 1;
  int64_t PerChannel() const { return outer * inner; }
};

// INVALID_ARGUMENT unless x has the rank the format implies (4 or 5).
Status MakeNormLayout(const TensorShape& x, const std::string& data_format, NormLayout* out);

// sums[c] = sum of f(offset, c) over the offsets of channel c.
template <typename F>
void SumPerChannel(const NormLayout& l, F f, std::vector<double>* sums) {
  sums->assign(l.channels, 0.0);
  double* __restrict s = sums->data();
  for (int64_t o = 0; o < l.outer; ++o) {
    const int64_t row = o * l.channels * l.inner;
    if (l.inner == 1) {
      for (int64_t c = 0; c < l.channels; ++c) s[c] += f(row + c, c);
      continue;
    }
    for (int64_t c = 0; c < l.channels; ++c) {
      const int64_t base = row + c * l.inner;
      double acc[4] = {0, 0, 0, 0};
      int64_t i = 0;
      for (; i + 4 <= l.inner; i += 4)
        for (int k = 0; k < 4; ++k) acc[k] += f(base + i + k, c);
      for (; i < l.inner; ++i) acc[0] += f(base + i, c);
      s[c] += (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
  }
}

// Calls f(offset, c) for every element of rows [begin, end) of the
// [outer, channels, inner] view.
template <typename F>
void ForEachInRows(const NormLayout& l, int64_t begin, int64_t end, F f) {
  for (int64_t o = begin; o < end; ++o) {
    const int64_t row = o * l.channels * l.inner;
    if (l.inner == 1) {
      for (int64_t c = 0; c < l.channels; ++c) f(row + c, c);
      continue;
    }
    for (int64_t c = 0; c < l.channels; ++c)
      for (int64_t i = 0, base = row + c * l.inner; i < l.inner; ++i) f(base + i, c);
  }
}

}  // namespace af
