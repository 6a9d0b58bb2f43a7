#include "kernels/math/broadcast.h"

#include <algorithm>

namespace af {

namespace {

// How one output dim relates to the operands.
enum class DimRole : uint8_t { kBoth, kXBroadcast, kYBroadcast };

Status IncompatibleShapes(const TensorShape& x, const TensorShape& y) {
  return errors::InvalidArgument("Incompatible shapes: ", x.DebugString(), " vs. ",
                                 y.DebugString());
}

// Size of `s` along dim `i` counted from the right (0 = last), 1 past its rank.
int64_t DimFromRight(const TensorShape& s, int i) {
  return i < s.dims() ? s.dim_size(s.dims() - 1 - i) : 1;
}

}  // namespace

Status BroadcastShapes(const TensorShape& x, const TensorShape& y, TensorShape* out) {
  BinaryBroadcast plan;
  AF_RETURN_IF_ERROR(plan.Init(x, y));
  *out = plan.output_shape();
  return Status::OK();
}

Status BinaryBroadcast::Init(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());

  // Output dims, and the merged (size, role) runs, built right to left.
  DimVector out_dims;
  out_dims.resize(rank, 1);
  DimVector merged_sizes;  // innermost first while building
  DimVector merged_roles;
  for (int i = 0; i < rank; ++i) {
    const int64_t xd = DimFromRight(x, i), yd = DimFromRight(y, i);
    int64_t od;
    DimRole role;
    if (xd == yd) {
      od = xd;
      role = DimRole::kBoth;
    } else if (xd == 1) {
      od = yd;
      role = DimRole::kXBroadcast;
    } else if (yd == 1) {
      od = xd;
      role = DimRole::kYBroadcast;
    } else {
      return IncompatibleShapes(x, y);
    }
    out_dims[rank - 1 - i] = od;
    if (od == 1) continue;  // a size-1 dim moves no operand
    const int64_t r = static_cast<int64_t>(role);
    if (!merged_roles.empty() && merged_roles[merged_roles.size() - 1] == r) {
      merged_sizes[merged_sizes.size() - 1] *= od;
    } else {
      merged_sizes.push_back(od);
      merged_roles.push_back(r);
    }
  }
  output_shape_ = TensorShape();
  for (int d = 0; d < rank; ++d) output_shape_.AddDim(out_dims[d]);

  // Reverse into row-major order and derive each operand's strides.
  const int n = merged_sizes.size();
  dims_.resize(n);
  x_strides_.resize(n);
  y_strides_.resize(n);
  int64_t x_stride = 1, y_stride = 1;
  for (int k = 0; k < n; ++k) {  // k = 0 is innermost
    const int d = n - 1 - k;
    const auto role = static_cast<DimRole>(merged_roles[k]);
    dims_[d] = merged_sizes[k];
    x_strides_[d] = role == DimRole::kXBroadcast ? 0 : x_stride;
    y_strides_[d] = role == DimRole::kYBroadcast ? 0 : y_stride;
    if (role != DimRole::kXBroadcast) x_stride *= merged_sizes[k];
    if (role != DimRole::kYBroadcast) y_stride *= merged_sizes[k];
  }

  rows_ = cols_ = 0;
  auto role_at = [&](int d) { return static_cast<DimRole>(merged_roles[n - 1 - d]); };
  if (n == 0 || (n == 1 && role_at(0) == DimRole::kBoth)) {
    kind_ = Kind::kSameShape;
  } else if (n == 1) {
    kind_ = role_at(0) == DimRole::kXBroadcast ? Kind::kXScalar : Kind::kYScalar;
  } else if (n == 2 && (role_at(0) == DimRole::kBoth || role_at(1) == DimRole::kBoth)) {
    // One dim shared, the other broadcast on one side: a row or a column.
    rows_ = dims_[0];
    cols_ = dims_[1];
    if (role_at(0) == DimRole::kBoth) {
      kind_ = role_at(1) == DimRole::kXBroadcast ? Kind::kXColumn : Kind::kYColumn;
    } else {
      kind_ = role_at(0) == DimRole::kXBroadcast ? Kind::kXRow : Kind::kYRow;
    }
  } else {
    kind_ = Kind::kGeneral;
  }
  return Status::OK();
}

int64_t BinaryBroadcast::num_units() const {
  if (num_elements() == 0) return 0;
  switch (kind_) {
    case Kind::kSameShape:
    case Kind::kXScalar:
    case Kind::kYScalar:
      return num_elements();
    case Kind::kYRow:
    case Kind::kXRow:
    case Kind::kYColumn:
    case Kind::kXColumn:
      return rows_;
    case Kind::kGeneral:
      break;
  }
  return num_elements() / dims_[dims_.size() - 1];
}

int64_t BinaryBroadcast::unit_size() const {
  const int64_t units = num_units();
  return units == 0 ? 0 : num_elements() / units;
}

}  // namespace af
