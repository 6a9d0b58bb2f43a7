#include "kernels/math/ternary_broadcast.h"

#include <algorithm>

namespace af {

Status TernaryBroadcast::Init(const TensorShape& a, const TensorShape& b, const TensorShape& c) {
  const std::array<const TensorShape*, kOperands> in = {&a, &b, &c};
  const int rank = std::max({a.dims(), b.dims(), c.dims()});
  // Size of operand k along output dim d (aligned from the right).
  auto size_of = [&](int k, int d) {
    const int i = in[k]->dims() - rank + d;
    return i >= 0 ? in[k]->dim_size(i) : int64_t{1};
  };

  output_shape_ = TensorShape();
  dims_.clear();
  for (auto& s : strides_) s.clear();
  // Which operands move along each kept output dim, as a bit set.
  DimVector moves;
  for (int d = 0; d < rank; ++d) {
    int64_t out = 1;
    for (int k = 0; k < kOperands; ++k)
      if (size_of(k, d) != 1) out = size_of(k, d);
    int64_t mask = 0;
    for (int k = 0; k < kOperands; ++k) {
      const int64_t s = size_of(k, d);
      if (s != 1 && s != out)
        return errors::InvalidArgument("condition ", a.DebugString(), ", then ",
                                       b.DebugString(), ", and else ", c.DebugString(),
                                       " must be broadcastable");
      if (s != 1) mask |= int64_t{1} << k;
    }
    output_shape_.AddDim(out);
    if (out == 1) continue;  // moves nothing
    if (!dims_.empty() && moves[moves.size() - 1] == mask) {
      dims_[dims_.size() - 1] *= out;
    } else {
      dims_.push_back(out);
      moves.push_back(mask);
    }
  }

  // Row-major strides of each operand over the merged dims.
  const int n = dims_.size();
  for (int k = 0; k < kOperands; ++k) {
    strides_[k].resize(n, 0);
    int64_t stride = 1;
    for (int d = n - 1; d >= 0; --d) {
      if ((moves[d] >> k) & 1) {
        strides_[k][d] = stride;
        stride *= dims_[d];
      }
    }
  }
  return Status::OK();
}

int64_t TernaryBroadcast::num_units() const {
  if (num_elements() == 0) return 0;
  return dims_.empty() ? 1 : num_elements() / dims_[dims_.size() - 1];
}

int64_t TernaryBroadcast::unit_size() const {
  const int64_t units = num_units();
  return units == 0 ? 0 : num_elements() / units;
}

}  // namespace af
