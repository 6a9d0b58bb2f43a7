// Matrix ops over batches of matrices (the last two dims): BatchMatMul,
// BatchMatMulV2, MatrixInverse, MatrixDeterminant.
#include <cstdint>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// Dims [begin, end) of a shape of known rank.
PartialTensorShape SubShape(const PartialTensorShape& s, int begin, int end) {
  PartialTensorShape out(TensorShape{});
  for (int d = begin; d < end; ++d) out.AddDim(s.dim_size(d));
  return out;
}

// Merges two dims, -1 being unknown.
Status MergeDim(InferenceContext* c, int64_t a, int64_t b, int64_t* out, const char* what) {
  if (a >= 0 && b >= 0 && a != b)
    return c->InvalidArgument(what, ": dimensions must be equal, but are ", a, " and ", b);
  *out = a >= 0 ? a : b;
  return Status::OK();
}

// Shared by both BatchMatMul versions: batch dims merged (V1, equal rank) or
// broadcast (V2), then [rows of op(x), cols of op(y)].
Status BatchMatMulShapeImpl(InferenceContext* c, bool broadcast_batch) {
  PartialTensorShape x, y;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2, &x));
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(1, 2, &y));
  if (x.unknown_rank() || y.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  bool adj_x = false, adj_y = false;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("adj_x", &adj_x)));
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("adj_y", &adj_y)));
  const int rx = x.dims(), ry = y.dims();
  const int64_t rows = x.dim_size(adj_x ? rx - 1 : rx - 2);
  const int64_t inner_x = x.dim_size(adj_x ? rx - 2 : rx - 1);
  const int64_t inner_y = y.dim_size(adj_y ? ry - 1 : ry - 2);
  const int64_t cols = y.dim_size(adj_y ? ry - 2 : ry - 1);
  if (inner_x >= 0 && inner_y >= 0 && inner_x != inner_y)
    return c->InvalidArgument("Matrix size-incompatible: In[0]: ", x.DebugString(),
                              ", In[1]: ", y.DebugString());
  PartialTensorShape batch;
  const PartialTensorShape batch_x = SubShape(x, 0, rx - 2), batch_y = SubShape(y, 0, ry - 2);
  if (broadcast_batch) {
    AF_RETURN_IF_ERROR(c->BroadcastBinary(batch_x, batch_y, &batch));
  } else {
    if (rx != ry)
      return c->InvalidArgument("In[0] and In[1] must have the same rank: ", x.DebugString(),
                                " vs. ", y.DebugString());
    AF_RETURN_IF_ERROR(c->Merge(batch_x, batch_y, &batch));
  }
  batch.AddDim(rows);
  batch.AddDim(cols);
  c->set_output(0, std::move(batch));
  return Status::OK();
}

Status BatchMatMulShape(InferenceContext* c) { return BatchMatMulShapeImpl(c, false); }
Status BatchMatMulV2Shape(InferenceContext* c) { return BatchMatMulShapeImpl(c, true); }

// Input [..., M, M]: the batch dims and the merged square size, or an error.
Status SquareMatrices(InferenceContext* c, PartialTensorShape* batch, int64_t* size) {
  PartialTensorShape input;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2, &input));
  if (input.unknown_rank()) {
    *batch = PartialTensorShape::Unknown();
    *size = -1;
    return Status::OK();
  }
  const int rank = input.dims();
  AF_RETURN_IF_ERROR(MergeDim(c, input.dim_size(rank - 2), input.dim_size(rank - 1), size,
                              "input matrices must be square"));
  *batch = SubShape(input, 0, rank - 2);
  return Status::OK();
}

// MatrixInverse: [..., M, M] -> [..., M, M].
Status BatchSquareUnchangedShape(InferenceContext* c) {
  PartialTensorShape batch;
  int64_t size = -1;
  AF_RETURN_IF_ERROR(SquareMatrices(c, &batch, &size));
  if (!batch.unknown_rank()) {
    batch.AddDim(size);
    batch.AddDim(size);
  }
  c->set_output(0, std::move(batch));
  return Status::OK();
}

// MatrixDeterminant: [..., M, M] -> [...].
Status BatchSquareToBatchShape(InferenceContext* c) {
  PartialTensorShape batch;
  int64_t size = -1;
  AF_RETURN_IF_ERROR(SquareMatrices(c, &batch, &size));
  c->set_output(0, std::move(batch));
  return Status::OK();
}

}  // namespace

REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .SetShapeFn(BatchMatMulShape);

REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double, int16, int32, int64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape);

REGISTER_OP("MatrixInverse")
    .Input("input: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(BatchSquareUnchangedShape);

REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(BatchSquareToBatchShape);

}  // namespace af
