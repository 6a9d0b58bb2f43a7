// The copy loop behind Concat and Pack: inputs [first, first + n) of the
// kernel, each viewed as [outer, inner_i], written one after the other per
// outer row into a dense output of outer * sum(inner_i) elements.
#pragma once

#include <cstdint>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {

template <typename S>
void ConcatRows(OpKernelContext* ctx, int first, int n, int64_t outer, S* out) {
  if (outer == 0) return;
  for (int64_t o = 0; o < outer; ++o) {
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(first + i);
      const int64_t inner = t.NumElements() / outer;
      if (inner == 1) {
        *out = StorageData<S>(t)[o];  // one element: no memcpy call
      } else {
        CopyElements(out, StorageData<S>(t) + o * inner, inner);
      }
      out += inner;
    }
  }
}

}  // namespace af
