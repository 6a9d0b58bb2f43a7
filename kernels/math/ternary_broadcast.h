// NumPy broadcasting of three operands, for SelectV2 (condition, then,
// else). As with BinaryBroadcast, size-1 output dims are dropped and
// neighbouring dims that every operand walks the same way are merged, so the
// common cases become one long innermost run.
#pragma once

#include <array>
#include <cstdint>

#include "core/status.h"
#include "core/tensor_shape.h"

namespace af {

class TernaryBroadcast {
 public:
  static constexpr int kOperands = 3;

  // INVALID_ARGUMENT naming all three shapes when they do not broadcast.
  Status Init(const TensorShape& a, const TensorShape& b, const TensorShape& c);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t num_elements() const { return output_shape_.num_elements(); }
  // Merged iteration space (row-major) and each operand's element stride
  // along it, 0 where the operand is broadcast.
  const DimVector& dims() const { return dims_; }
  const DimVector& strides(int operand) const { return strides_[operand]; }

  // Work units for splitting over threads: innermost runs.
  int64_t num_units() const;
  int64_t unit_size() const;

  // Calls run(out_offset, offsets, steps, length) for innermost runs
  // [begin, end): element i of the run is output out_offset + i and operand
  // k's element offsets[k] + i * steps[k].
  template <typename Run>
  void ForEachRun(int64_t begin, int64_t end, Run run) const;

 private:
  TensorShape output_shape_;
  DimVector dims_;
  std::array<DimVector, kOperands> strides_;
};

template <typename Run>
void TernaryBroadcast::ForEachRun(int64_t begin, int64_t end, Run run) const {
  if (begin >= end) return;
  const int rank = dims_.size();
  if (rank == 0) {  // a single element
    const std::array<int64_t, kOperands> zero{};
    run(int64_t{0}, zero, zero, int64_t{1});
    return;
  }
  const int64_t inner = dims_[rank - 1];
  std::array<int64_t, kOperands> steps{}, offsets{};
  for (int k = 0; k < kOperands; ++k) steps[k] = strides_[k][rank - 1];
  // Odometer over the outer dims, started at run `begin`.
  DimVector index;
  index.resize(rank - 1, 0);
  int64_t rem = begin;
  for (int d = rank - 2; d >= 0; --d) {
    index[d] = rem % dims_[d];
    rem /= dims_[d];
    for (int k = 0; k < kOperands; ++k) offsets[k] += index[d] * strides_[k][d];
  }
  for (int64_t r = begin; r < end; ++r) {
    run(r * inner, offsets, steps, inner);
    for (int d = rank - 2; d >= 0; --d) {
      for (int k = 0; k < kOperands; ++k) offsets[k] += strides_[k][d];
      if (++index[d] < dims_[d]) break;
      for (int k = 0; k < kOperands; ++k) offsets[k] -= strides_[k][d] * dims_[d];
      index[d] = 0;
    }
  }
}

}  // namespace af
