// N-d indices, as GatherNd, ScatterNd and ScatterNd{Update,Add,Sub} read
// them: an index tensor [..., K] is a list of rows of K coordinates, each
// naming one slice of a target shape over its first K dims. The slice
// layout, a row's slice number, the bad_indices_policy attr and the error
// words live here once, so that the gathers and the scatters reject the
// same inputs the same way.
#pragma once

#include <cstdint>
#include <string>

#include "core/attr_value_util.h"
#include "core/op_kernel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/array/array_kernel_util.h"

namespace af {

// The slices an index tensor names in a target shape.
struct NdSlices {
  int64_t depth = 0;       // K = indices.shape[-1]
  int64_t count = 0;       // index rows: the product of indices.shape[:-1]
  int64_t slice_size = 1;  // elements per slice: the product of target.shape[K:]
  DimVector dims;          // target.shape[:K]
  TensorShape rows_shape;  // indices.shape[:-1], for naming a bad row
};

// Checks that indices is at least a vector whose last dim is at most the
// target's rank, and fills `out`. `target_name` names the target in the
// error ("params", "shape", "ref").
inline Status MakeNdSlices(OpKernelContext* ctx, const Tensor& indices, const TensorShape& target,
                           const char* target_name, NdSlices* out) {
  if (indices.dims() < 1)
    return ctx->NodeError(errors::InvalidArgument("indices must be at least a vector, got shape ",
                                                  indices.shape().DebugString()));
  out->depth = indices.dim_size(indices.dims() - 1);
  if (out->depth > target.dims())
    return ctx->NodeError(errors::InvalidArgument(
        "indices.shape[-1] must be <= ", target_name, ".rank, but saw indices shape: ",
        indices.shape().DebugString(), " and ", target_name, " shape: ", target.DebugString()));
  out->rows_shape = TensorShape();
  for (int d = 0; d + 1 < indices.dims(); ++d) out->rows_shape.AddDim(indices.dim_size(d));
  out->count = out->rows_shape.num_elements();
  const int k = static_cast<int>(out->depth);
  out->slice_size = DimProduct(target, k, target.dims());
  out->dims.clear();
  for (int d = 0; d < k; ++d) out->dims.push_back(target.dim_size(d));
  return Status::OK();
}

// indices.shape[:-1] + target.shape[K:]: the shape of what a gather
// produces and a scatter consumes.
inline TensorShape NdSlicesShape(const NdSlices& s, const TensorShape& target) {
  TensorShape out = s.rows_shape;
  for (int d = static_cast<int>(s.depth); d < target.dims(); ++d) out.AddDim(target.dim_size(d));
  return out;
}

// The slice number (row-major over target.shape[:K]) that the K
// coordinates at `row` name, or -1 when one is out of range.
template <typename Index>
inline int64_t NdSliceNumber(const Index* row, const NdSlices& s) {
  int64_t flat = 0;
  for (int k = 0; k < static_cast<int>(s.depth); ++k) {
    const auto c = static_cast<int64_t>(row[k]);
    const int64_t n = s.dims[k];
    if (c < 0 || c >= n) return -1;
    flat = flat * n + c;
  }
  return flat;
}

// "indices[1,0] = [4, 0] does not index into params shape [3,2]".
inline Status BadNdIndex(OpKernelContext* ctx, const Tensor& indices, const NdSlices& s,
                         int64_t row, const char* target_name, const TensorShape& target) {
  std::string coords = "[";
  for (int64_t k = 0; k < s.depth; ++k)
    coords += (k ? ", " : "") + std::to_string(IntElement(indices, row * s.depth + k));
  coords += "]";
  return ctx->NodeError(errors::InvalidArgument("indices", FlatIndexString(s.rows_shape, row),
                                                " = ", coords, " does not index into ", target_name,
                                                " shape ", target.DebugString()));
}

// Calls fn(ElementTag<I>{}) with I the C++ type of an index dtype (int16,
// int32 or int64; the ops' attrs allow no other).
template <typename Fn>
void VisitIndexType(DataType dtype, Fn&& fn) {
  switch (BaseType(dtype)) {
    case DT_INT16:
      fn(ElementTag<int16_t>{});
      return;
    case DT_INT32:
      fn(ElementTag<int32_t>{});
      return;
    default:
      fn(ElementTag<int64_t>{});
      return;
  }
}

// What an out-of-range index row does: TensorFlow's bad_indices_policy.
// "" and "DEFAULT" are errors on a CPU, as "ERROR" is; "IGNORE" skips the
// row (a gather writes zeros for it).
enum class BadIndicesPolicy { kError, kIgnore };

inline Status ParseBadIndicesPolicy(OpKernelConstruction* ctx, BadIndicesPolicy* out) {
  *out = BadIndicesPolicy::kError;
  if (!ctx->HasAttr("bad_indices_policy")) return Status::OK();
  std::string policy;
  AF_RETURN_IF_ERROR(ctx->GetAttr("bad_indices_policy", &policy));
  if (policy.empty() || policy == "DEFAULT" || policy == "ERROR") return Status::OK();
  if (policy == "IGNORE") {
    *out = BadIndicesPolicy::kIgnore;
    return Status::OK();
  }
  return NodeStatus(ctx->def(),
                    errors::InvalidArgument("bad_indices_policy must be '', 'DEFAULT', 'ERROR' or "
                                            "'IGNORE', got '",
                                            policy, "'"));
}

// updates.shape must be indices.shape[:-1] + target.shape[K:] exactly.
inline Status CheckNdUpdatesShape(OpKernelContext* ctx, const Tensor& updates, const NdSlices& s,
                                  const char* target_name, const TensorShape& target) {
  const TensorShape want = NdSlicesShape(s, target);
  if (updates.shape() == want) return Status::OK();
  return ctx->NodeError(errors::InvalidArgument(
      "updates.shape ", updates.shape().DebugString(), " must be indices.shape[:-1] + ",
      target_name, ".shape[indices.shape[-1]:] = ", want.DebugString()));
}

}  // namespace af
