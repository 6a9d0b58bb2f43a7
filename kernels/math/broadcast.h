// NumPy broadcasting for element-wise binary kernels.
//
// BinaryBroadcast works out the output shape of `x op y` and describes how
// each operand walks over it. Dims of size 1 are dropped and neighbouring
// dims that broadcast the same way are merged, so [8,1,4,5] vs [4,5]
// becomes a plain "row" case of 8 rows of 20, and most real graphs end up in
// one of the fast paths below. Everything else runs through an N-d strided
// loop whose innermost dimension is still a tight, vectorizable loop.
//
// The plan depends only on the two shapes and never allocates for ranks up
// to DimVector::kInlineDims, so kernels build one per step.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "core/tensor_shape.h"

namespace af {

// Output shape of broadcasting `x` against `y`; INVALID_ARGUMENT
// "Incompatible shapes: [2,3] vs. [4]" if they do not broadcast.
Status BroadcastShapes(const TensorShape& x, const TensorShape& y, TensorShape* out);

class BinaryBroadcast {
 public:
  enum class Kind {
    kSameShape,  // x and y have the output's elements, in order
    kXScalar,    // x has one element
    kYScalar,    // y has one element
    kYRow,       // out is [rows, cols]; y has cols elements, x is full
    kXRow,       // out is [rows, cols]; x has cols elements, y is full
    kYColumn,    // out is [rows, cols]; y has rows elements, x is full
    kXColumn,    // out is [rows, cols]; x has rows elements, y is full
    kGeneral,    // anything else: strided N-d walk
  };

  // Plans `x op y`. On error the plan is unusable.
  Status Init(const TensorShape& x, const TensorShape& y);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t num_elements() const { return output_shape_.num_elements(); }
  Kind kind() const { return kind_; }
  // For the row and column kinds.
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }

  // The merged iteration space: dims() of the output after collapsing, and
  // the element stride of each operand along each of them (0 where the
  // operand is broadcast). Row-major; the last dim is innermost.
  const DimVector& dims() const { return dims_; }
  const DimVector& x_strides() const { return x_strides_; }
  const DimVector& y_strides() const { return y_strides_; }

  // The loop is split into units that may run on different threads:
  // elements for the same-shape and scalar kinds, rows for the row and
  // column kinds, innermost runs for the general kind.
  int64_t num_units() const;
  int64_t unit_size() const;  // output elements per unit

 private:
  TensorShape output_shape_;
  Kind kind_ = Kind::kSameShape;
  int64_t rows_ = 0, cols_ = 0;
  DimVector dims_, x_strides_, y_strides_;
};

namespace broadcast_internal {

// The three innermost loops. `__restrict` lets the compiler vectorize them;
// outputs never alias inputs because kernels allocate their outputs.
template <typename In, typename Out, typename F>
inline void Elementwise(const In* __restrict x, const In* __restrict y, Out* __restrict z,
                        int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
}
template <typename In, typename Out, typename F>
inline void ScalarLeft(In x, const In* __restrict y, Out* __restrict z, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) z[i] = f(x, y[i]);
}
template <typename In, typename Out, typename F>
inline void ScalarRight(const In* __restrict x, In y, Out* __restrict z, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y);
}

// Innermost runs [begin, end) of the general kind; z points at the output's
// first element.
template <typename In, typename Out, typename F>
void StridedWalk(const BinaryBroadcast& plan, const In* x, const In* y, Out* z, F f,
                 int64_t begin, int64_t end) {
  const DimVector& dims = plan.dims();
  const DimVector& xs = plan.x_strides();
  const DimVector& ys = plan.y_strides();
  const int rank = dims.size();
  const int64_t inner = dims[rank - 1];
  const int64_t x_step = xs[rank - 1], y_step = ys[rank - 1];

  // Position the odometer over the outer dims at run `begin`.
  DimVector index;
  index.resize(rank - 1, 0);
  int64_t x_off = 0, y_off = 0;
  int64_t rem = begin;
  for (int d = rank - 2; d >= 0; --d) {
    index[d] = rem % dims[d];
    rem /= dims[d];
    x_off += index[d] * xs[d];
    y_off += index[d] * ys[d];
  }
  z += begin * inner;
  for (int64_t o = begin; o < end; ++o, z += inner) {
    if (x_step == 0) {
      ScalarLeft(x[x_off], y + y_off, z, inner, f);
    } else if (y_step == 0) {
      ScalarRight(x + x_off, y[y_off], z, inner, f);
    } else {
      Elementwise(x + x_off, y + y_off, z, inner, f);
    }
    // Odometer increment over the outer dims, keeping operand offsets in step.
    for (int d = rank - 2; d >= 0; --d) {
      x_off += xs[d];
      y_off += ys[d];
      if (++index[d] < dims[d]) break;
      x_off -= xs[d] * dims[d];
      y_off -= ys[d] * dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace broadcast_internal

// z = f(x, y) over units [begin, end) of the plan (see num_units()); z
// points at the output's first element and holds plan.num_elements() values.
template <typename In, typename Out, typename F>
void BroadcastBinaryRange(const BinaryBroadcast& plan, const In* x, const In* y, Out* z, F f,
                          int64_t begin, int64_t end) {
  namespace bi = broadcast_internal;
  if (begin >= end) return;
  const int64_t cols = plan.cols();
  const int64_t n = end - begin;
  switch (plan.kind()) {
    case BinaryBroadcast::Kind::kSameShape:
      bi::Elementwise(x + begin, y + begin, z + begin, n, f);
      return;
    case BinaryBroadcast::Kind::kXScalar:
      bi::ScalarLeft(x[0], y + begin, z + begin, n, f);
      return;
    case BinaryBroadcast::Kind::kYScalar:
      bi::ScalarRight(x + begin, y[0], z + begin, n, f);
      return;
    case BinaryBroadcast::Kind::kYRow:
      for (int64_t r = begin; r < end; ++r)
        bi::Elementwise(x + r * cols, y, z + r * cols, cols, f);
      return;
    case BinaryBroadcast::Kind::kXRow:
      for (int64_t r = begin; r < end; ++r)
        bi::Elementwise(x, y + r * cols, z + r * cols, cols, f);
      return;
    case BinaryBroadcast::Kind::kYColumn:
      for (int64_t r = begin; r < end; ++r)
        bi::ScalarRight(x + r * cols, y[r], z + r * cols, cols, f);
      return;
    case BinaryBroadcast::Kind::kXColumn:
      for (int64_t r = begin; r < end; ++r)
        bi::ScalarLeft(x[r], y + r * cols, z + r * cols, cols, f);
      return;
    case BinaryBroadcast::Kind::kGeneral:
      bi::StridedWalk(plan, x, y, z, f, begin, end);
      return;
  }
}

// z = f(x, y) over the plan's output, z holding plan.num_elements() values.
template <typename In, typename Out, typename F>
void BroadcastBinaryLoop(const BinaryBroadcast& plan, const In* x, const In* y, Out* z, F f) {
  if (plan.num_elements() == 0) return;
  BroadcastBinaryRange(plan, x, y, z, f, 0, plan.num_units());
}

}  // namespace af
