// Rearranging or growing a tensor: Transpose, InvertPermutation, Tile, Pad
// and PadV2.
#include <vector>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::ConstantInts;

// The rank implied by the input's shape or, failing that, by the length of
// the 1-D (or first dim of the 2-D) input `spec_input`; -1 if neither is
// known.
int KnownRank(const InferenceContext* c, int spec_input) {
  if (!c->input(0).unknown_rank()) return c->input(0).dims();
  const PartialTensorShape& s = c->input(spec_input);
  if (!s.unknown_rank() && s.dims() >= 1 && s.dim_size(0) >= 0)
    return static_cast<int>(s.dim_size(0));
  return -1;
}

Status TransposeShape(InferenceContext* c) {
  PartialTensorShape perm_shape;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &perm_shape));
  const PartialTensorShape& in = c->input(0);
  if (!in.unknown_rank() && perm_shape.dim_size(0) >= 0 && perm_shape.dim_size(0) != in.dims())
    return c->InvalidArgument("transpose expects a vector of size ", in.dims(),
                              ". But input(1) is a vector of size ", perm_shape.dim_size(0));
  const int rank = KnownRank(c, 1);
  bool known = false;
  std::vector<int64_t> perm;
  AF_RETURN_IF_ERROR(ConstantInts(c, 1, &known, &perm));
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (!known) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(rank));
    return Status::OK();
  }
  if (static_cast<int>(perm.size()) != rank)
    return c->InvalidArgument("transpose expects a vector of size ", rank,
                              ". But input(1) is a vector of size ", perm.size());
  std::vector<int64_t> out(rank, -1);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t p = perm[i];
    if (p < 0 || p >= rank || seen[p])
      return c->InvalidArgument("perm[", i, "] = ", p, " makes perm not a permutation of [0, ",
                                rank, ")");
    seen[p] = true;
    if (!in.unknown_rank()) out[i] = in.dim_size(static_cast<int>(p));
  }
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status InvertPermutationShape(InferenceContext* c) {
  PartialTensorShape x;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &x));
  c->set_output(0, x);
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  PartialTensorShape multiples_shape;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &multiples_shape));
  const PartialTensorShape& in = c->input(0);
  if (!in.unknown_rank() && multiples_shape.dim_size(0) >= 0 &&
      multiples_shape.dim_size(0) != in.dims())
    return c->InvalidArgument("Expected multiples argument to be a vector of length ", in.dims(),
                              " but got length ", multiples_shape.dim_size(0));
  const int rank = KnownRank(c, 1);
  bool known = false;
  std::vector<int64_t> multiples;
  AF_RETURN_IF_ERROR(ConstantInts(c, 1, &known, &multiples));
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (known && static_cast<int>(multiples.size()) != rank)
    return c->InvalidArgument("Expected multiples argument to be a vector of length ", rank,
                              " but got length ", multiples.size());
  std::vector<int64_t> out(rank, -1);
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = in.unknown_rank() ? -1 : in.dim_size(i);
    if (known && multiples[i] < 0)
      return c->InvalidArgument("Expected multiples[", i, "] >= 0, but got ", multiples[i]);
    if (known && (multiples[i] == 0 || dim == 0))
      out[i] = 0;
    else if (known && dim >= 0)
      out[i] = dim * multiples[i];
  }
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status PadShape(InferenceContext* c) {
  PartialTensorShape paddings_shape;
  AF_RETURN_IF_ERROR(c->WithRank(1, 2, &paddings_shape));
  if (paddings_shape.dim_size(1) >= 0 && paddings_shape.dim_size(1) != 2)
    return c->InvalidArgument("paddings must be a matrix with 2 columns: ",
                              paddings_shape.DebugString());
  if (c->num_inputs() > 2) {
    PartialTensorShape ignored;
    AF_RETURN_IF_ERROR(c->WithRank(2, 0, &ignored));
  }
  const PartialTensorShape& in = c->input(0);
  if (!in.unknown_rank() && paddings_shape.dim_size(0) >= 0 &&
      paddings_shape.dim_size(0) != in.dims())
    return c->InvalidArgument("The first dimension of paddings must be the rank of inputs",
                              paddings_shape.DebugString(), " ", in.DebugString());
  const int rank = KnownRank(c, 1);
  bool known = false;
  std::vector<int64_t> paddings;
  AF_RETURN_IF_ERROR(ConstantInts(c, 1, &known, &paddings));
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  if (known && static_cast<int>(paddings.size()) != 2 * rank)
    return c->InvalidArgument("The first dimension of paddings must be the rank of inputs",
                              paddings_shape.DebugString(), " ", in.DebugString());
  std::vector<int64_t> out(rank, -1);
  if (known) {
    for (int i = 0; i < rank; ++i) {
      const int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
      if (before < 0 || after < 0)
        return c->InvalidArgument("Paddings must be non-negative: ", before, " ", after);
      const int64_t dim = in.unknown_rank() ? -1 : in.dim_size(i);
      if (dim >= 0) out[i] = dim + before + after;
    }
  }
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(TransposeShape)
    .Doc("y.shape[i] = x.shape[perm[i]]; dims reordered by perm.");

REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InvertPermutationShape)
    .Doc("y[x[i]] = i.");

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape)
    .Doc("Repeats the input multiples[i] times along dim i.");

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Doc("Pads with zeros: paddings[i] = [before, after] for dim i.");

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Doc("Pads with constant_values: paddings[i] = [before, after] for dim i.");

}  // namespace af
