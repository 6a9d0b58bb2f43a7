// Copies between a dense row-major block and a strided view of another
// buffer. Slice, StridedSlice (negative strides too), Transpose, Split,
// Unpack, Pad, BroadcastTo (stride 0 repeats an element) and
// StridedSliceGrad are all one of these two loops.
//
// Dims of size 1 are dropped and neighbouring dims that are contiguous in
// the strided view are merged first, so the innermost loop runs as long as
// possible: a memcpy when its stride is 1, a fill when it is 0.
#pragma once

#include <cstdint>

#include "core/tensor_shape.h"
#include "kernels/array/array_kernel_util.h"

namespace af {

// Removes size-1 dims and merges dim d into d+1 where
// strides[d] == strides[d+1] * dims[d+1]. Leaves at least one dim unless the
// box is empty-rank; a box with a zero dim becomes {0}.
inline void CompressStridedBox(DimVector* dims, DimVector* strides) {
  DimVector out_dims, out_strides;
  for (int d = 0; d < dims->size(); ++d) {
    if ((*dims)[d] == 0) {
      *dims = DimVector{0};
      *strides = DimVector{1};
      return;
    }
    if ((*dims)[d] == 1) continue;
    const int n = out_dims.size();
    if (n > 0 && out_strides[n - 1] == (*strides)[d] * (*dims)[d]) {
      out_dims[n - 1] *= (*dims)[d];
      out_strides[n - 1] = (*strides)[d];
    } else {
      out_dims.push_back((*dims)[d]);
      out_strides.push_back((*strides)[d]);
    }
  }
  if (out_dims.empty()) {
    out_dims.push_back(1);
    out_strides.push_back(1);
  }
  *dims = out_dims;
  *strides = out_strides;
}

namespace strided_internal {

// Calls row(offset, inner, inner_stride) for every innermost row of the
// box, offsets in elements relative to the box's first element, rows in
// row-major order.
template <typename RowFn>
void ForEachRow(DimVector dims, DimVector strides, RowFn row) {
  CompressStridedBox(&dims, &strides);
  const int rank = dims.size();
  const int64_t inner = dims[rank - 1];
  if (inner == 0) return;
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; ++d) outer *= dims[d];
  DimVector index;
  index.resize(rank - 1, 0);
  int64_t offset = 0;
  for (int64_t o = 0; o < outer; ++o) {
    row(offset, inner, strides[rank - 1]);
    for (int d = rank - 2; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace strided_internal

// dst (dense, dims) = src viewed with element `strides` from its first
// element `src`.
template <typename S>
void StridedToDense(const S* src, const DimVector& dims, const DimVector& strides, S* dst) {
  strided_internal::ForEachRow(dims, strides, [&](int64_t offset, int64_t n, int64_t stride) {
    const S* s = src + offset;
    if (stride == 1) {
      CopyElements(dst, s, n);
    } else if (stride == 0) {
      FillElements(dst, *s, n);
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = s[i * stride];
    }
    dst += n;
  });
}

// The strided view of dst with element `strides` from `dst` = src (dense,
// dims). Strides must not be 0.
template <typename S>
void DenseToStrided(const S* src, const DimVector& dims, const DimVector& strides, S* dst) {
  strided_internal::ForEachRow(dims, strides, [&](int64_t offset, int64_t n, int64_t stride) {
    S* d = dst + offset;
    if (stride == 1) {
      CopyElements(d, src, n);
    } else {
      for (int64_t i = 0; i < n; ++i) d[i * stride] = src[i];
    }
    src += n;
  });
}

// Row-major element strides of `shape`.
inline DimVector DenseStrides(const TensorShape& shape) {
  DimVector strides;
  strides.resize(shape.dims(), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim_size(d + 1);
  return strides;
}

// If the box of `sizes` at `begin` (unit strides) covers one contiguous
// run of a row-major tensor of `shape`, its first element's offset:
// leading dims taken one index each, then one partial dim, then whole dims.
inline bool ContiguousBox(const TensorShape& shape, const DimVector& begin, const DimVector& sizes,
                          int64_t* offset) {
  const int rank = shape.dims();
  int d = rank - 1;
  while (d >= 0 && sizes[d] == shape.dim_size(d)) --d;  // whole trailing dims
  --d;                                                  // dim d+1 may be partial
  for (; d >= 0; --d)
    if (sizes[d] != 1) return false;
  const DimVector strides = DenseStrides(shape);
  *offset = 0;
  for (int i = 0; i < rank; ++i) *offset += begin[i] * strides[i];
  return true;
}

}  // namespace af
