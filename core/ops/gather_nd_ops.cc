// N-d gathers and scatters: an index tensor [..., K] names slices of a
// tensor over its first K dims. GatherNd reads them, ScatterNd sums
// updates into a new zero tensor (GatherNd's gradient, and the reverse),
// and ScatterNdUpdate/Add/Sub write them into a variable in place.
#include <vector>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::ConstantInts;
using array_shape::Dims;

// K = indices.shape[-1], or -1 when unknown.
int64_t IndexDepth(const PartialTensorShape& indices) {
  if (indices.unknown_rank() || indices.dims() == 0) return -1;
  return indices.dim_size(indices.dims() - 1);
}

// indices.shape[:-1] + target.shape[K:], or unknown rank when that is not
// known yet. `target_name` names target in the rank error.
Status SlicesShape(InferenceContext* c, const PartialTensorShape& indices,
                   const PartialTensorShape& target, const char* target_name,
                   PartialTensorShape* out) {
  const int64_t k = IndexDepth(indices);
  if (target.unknown_rank() || k < 0) {
    *out = PartialTensorShape::Unknown();
    return Status::OK();
  }
  if (k > target.dims())
    return c->InvalidArgument("indices.shape[-1] must be <= ", target_name,
                              ".rank, but saw indices shape: ", indices.DebugString(), " and ",
                              target_name, " shape: ", target.DebugString());
  std::vector<int64_t> dims = Dims(indices);
  dims.pop_back();
  for (int d = static_cast<int>(k); d < target.dims(); ++d) dims.push_back(target.dim_size(d));
  *out = PartialTensorShape(dims);
  return Status::OK();
}

// updates (input `updates_input`) must be indices.shape[:-1] + target.shape[K:].
Status CheckUpdates(InferenceContext* c, int updates_input, const PartialTensorShape& indices,
                    const PartialTensorShape& target, const char* target_name) {
  PartialTensorShape want;
  AF_RETURN_IF_ERROR(SlicesShape(c, indices, target, target_name, &want));
  const PartialTensorShape& updates = c->input(updates_input);
  if (want.unknown_rank() || updates.unknown_rank() || want.IsCompatibleWith(updates))
    return Status::OK();
  return c->InvalidArgument("updates.shape ", updates.DebugString(),
                            " must be indices.shape[:-1] + ", target_name,
                            ".shape[indices.shape[-1]:] = ", want.DebugString());
}

Status GatherNdShape(InferenceContext* c) {
  PartialTensorShape indices, out;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1, &indices));
  AF_RETURN_IF_ERROR(SlicesShape(c, indices, c->input(0), "params", &out));
  c->set_output(0, out);
  return Status::OK();
}

// The output shape is the value of `shape`: -1 entries (and a value not
// known yet) leave dims unknown.
Status ScatterNdShape(InferenceContext* c) {
  PartialTensorShape indices, shape_of_shape;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1, &indices));
  AF_RETURN_IF_ERROR(c->WithRank(2, 1, &shape_of_shape));
  bool known = false;
  std::vector<int64_t> dims;
  AF_RETURN_IF_ERROR(ConstantInts(c, 2, &known, &dims));
  PartialTensorShape out;
  if (known) {
    for (const int64_t d : dims) {
      if (d < -1) return c->InvalidArgument("shape holds a negative dim ", d);
    }
    out = PartialTensorShape(dims);
  } else if (shape_of_shape.dim_size(0) >= 0) {
    out = PartialTensorShape::UnknownOfRank(static_cast<int>(shape_of_shape.dim_size(0)));
  }
  AF_RETURN_IF_ERROR(CheckUpdates(c, 1, indices, out, "shape"));
  c->set_output(0, out);
  return Status::OK();
}

Status ScatterNdUpdateShape(InferenceContext* c) {
  PartialTensorShape indices;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1, &indices));
  AF_RETURN_IF_ERROR(CheckUpdates(c, 2, indices, c->input(0), "ref"));
  c->set_output(0, c->input(0));
  return Status::OK();
}

}  // namespace

// bad_indices_policy: "" or "DEFAULT" (an error on CPU), "ERROR", or
// "IGNORE" (out-of-range index rows are skipped; GatherNd writes zeros).
REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(GatherNdShape)
    .Doc("output[i...] = params[indices[i..., :]], slices of params over its first K dims.");

REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdShape)
    .Doc("A zero tensor of `shape` with updates[i...] added at indices[i..., :]; repeats add up.");

REGISTER_OP("ScatterNdUpdate")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = true")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdUpdateShape)
    .Doc("ref[indices[i..., :]] = updates[i...].");

REGISTER_OP("ScatterNdAdd")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdUpdateShape)
    .Doc("ref[indices[i..., :]] += updates[i...]; repeats add up.");

REGISTER_OP("ScatterNdSub")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdUpdateShape)
    .Doc("ref[indices[i..., :]] -= updates[i...]; repeats add up.");

}  // namespace af
