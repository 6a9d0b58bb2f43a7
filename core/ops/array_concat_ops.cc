// Joining tensors: Concat (axis first, TensorFlow 1), ConcatV2 (axis last),
// ConcatOffset (for Concat's gradient) and Pack.
#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::CanonicalAxis;
using array_shape::ConstantInt;
using array_shape::Dims;

// Values are inputs [first, first + n); the axis is input `axis_input`.
Status ConcatShapeImpl(InferenceContext* c, int axis_input, int first, int n) {
  int rank = -1, rank_source = -1;
  for (int i = first; i < first + n; ++i) {
    const PartialTensorShape& s = c->input(i);
    if (s.unknown_rank()) continue;
    if (rank < 0) {
      rank = s.dims();
      rank_source = i;
    } else if (s.dims() != rank) {
      return c->InvalidArgument("Shapes must be equal rank, but are ", rank, " and ", s.dims(),
                                " (input ", rank_source - first, " is ",
                                c->input(rank_source).DebugString(), ", input ", i - first, " is ",
                                s.DebugString(), ")");
    }
  }
  bool known = false;
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(ConstantInt(c, axis_input, "concat axis", &known, &axis));
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (rank == 0) return c->InvalidArgument("Can't concatenate scalars (use tf.stack instead)");
  if (!known) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(rank));
    return Status::OK();
  }
  int a = 0;
  AF_RETURN_IF_ERROR(CanonicalAxis(c, axis, rank, "ConcatOp : concat axis", &a));
  std::vector<int64_t> out(rank, -1);
  int64_t axis_sum = 0;
  for (int i = first; i < first + n; ++i) {
    const PartialTensorShape& s = c->input(i);
    if (s.unknown_rank()) {
      axis_sum = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      const int64_t v = s.dim_size(d);
      if (d == a) {
        axis_sum = (axis_sum < 0 || v < 0) ? -1 : axis_sum + v;
      } else if (v >= 0) {
        if (out[d] >= 0 && out[d] != v)
          return c->InvalidArgument("Dimension ", d, " in both shapes must be equal, but are ",
                                    out[d], " and ", v, ". Shapes are ",
                                    c->input(first).DebugString(), " and ", s.DebugString(),
                                    " (input ", i - first, ")");
        out[d] = v;
      }
    }
  }
  out[a] = axis_sum;
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status ConcatShape(InferenceContext* c) { return ConcatShapeImpl(c, 0, 1, c->num_inputs() - 1); }

Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeImpl(c, c->num_inputs() - 1, 0, c->num_inputs() - 1);
}

Status ConcatOffsetShape(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs(); ++i) c->set_output(i - 1, c->input(i));
  return Status::OK();
}

Status PackShape(InferenceContext* c) {
  PartialTensorShape merged = PartialTensorShape::Unknown();
  for (int i = 0; i < c->num_inputs(); ++i)
    AF_RETURN_IF_ERROR(c->Merge(merged, c->input(i), &merged));
  if (merged.unknown_rank()) {
    c->set_output(0, merged);
    return Status::OK();
  }
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("axis", &axis)));
  const int rank = merged.dims();
  if (axis < -(rank + 1) || axis > rank)
    return c->InvalidArgument("Invalid axis: ", axis, "; must be in [", -(rank + 1), ",", rank + 1,
                              ")");
  if (axis < 0) axis += rank + 1;
  std::vector<int64_t> dims = Dims(merged);
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Concat")
    .Input("concat_dim: int32")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .SetShapeFn(ConcatShape)
    .Doc("Joins tensors along concat_dim.");

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatV2Shape)
    .Doc("Joins tensors along axis.");

REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32")
    .Input("shape: N * shape_type")
    .Output("offset: N * shape_type")
    .Attr("N: int >= 2")
    .Attr("shape_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatOffsetShape)
    .Doc("Where each input of a Concat starts in its output.");

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape)
    .Doc("Stacks N tensors of one shape along a new axis.");

}  // namespace af
