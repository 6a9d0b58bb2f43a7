// Gradients of array ops: identities, reshapes, transposes, concatenation,
// slicing, packing, tiling, padding and gathers.
#include "client/gradients/grad_helpers.h"
#include "client/gradients/grad_link.h"

namespace af {
namespace grad_link {
void ArrayGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

Status IdentityGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(g[0]);
  return s.status();
}
// The gradient is checked too, as TensorFlow does.
Status CheckNumericsGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  std::string message;
  AF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "message", &message));
  out->push_back(ops::CheckNumerics(
      s, g[0], "Not a number (NaN) or infinity (Inf) values detected in gradient. " + message));
  return s.status();
}

// Print: the gradient flows to the printed input; the data inputs get none.
Status PrintGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(g[0]);
  for (int i = 1; i < op.num_inputs(); ++i) out->push_back(NoGradient());
  return s.status();
}

REGISTER_GRADIENT_OP("Identity", IdentityGrad);
REGISTER_GRADIENT_OP("CheckNumerics", CheckNumericsGrad);
REGISTER_GRADIENT_OP("Print", PrintGrad);
REGISTER_GRADIENT_OP("Snapshot", IdentityGrad);
REGISTER_GRADIENT_OP("PlaceholderWithDefault", IdentityGrad);

Status IdentityNGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = g;
  return s.status();
}
REGISTER_GRADIENT_OP("IdentityN", IdentityNGrad);

REGISTER_NO_GRADIENT_OP("StopGradient");
REGISTER_NO_GRADIENT_OP("ZerosLike");
REGISTER_NO_GRADIENT_OP("OnesLike");

Status PreventGradientGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  std::string message;
  GetAttr(op, "message", &message).ok();
  return errors::InvalidArgument("node '", op.name(),
                                 "' (op 'PreventGradient'): gradient explicitly disabled",
                                 message.empty() ? "" : ": ", message);
}
REGISTER_GRADIENT_OP("PreventGradient", PreventGradientGrad);

// Ops that only rearrange the shape: the gradient takes the input's shape
// back; the shape-like second input (if any) gets none.
Status ReshapeLikeGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0);
  Output shape = ShapeOf(s, x);
  out->push_back(ops::Reshape(s, g[0], shape));
  for (int i = 1; i < op.num_inputs(); ++i) out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Reshape", ReshapeLikeGrad);
REGISTER_GRADIENT_OP("ExpandDims", ReshapeLikeGrad);
REGISTER_GRADIENT_OP("Squeeze", ReshapeLikeGrad);

Status TransposeGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Transpose(s, g[0], ops::InvertPermutation(s, op.input(1))));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Transpose", TransposeGrad);

Status BroadcastToGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(SumToShapeOf(s, g[0], op.input(0)));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("BroadcastTo", BroadcastToGrad);

// Fill(dims, value): every element came from the scalar value.
Status FillGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto all_axes = ops::Range(s, 0, ops::Rank(s, g[0]), 1);
  out->push_back(NoGradient());
  out->push_back(ops::Sum(s, g[0], all_axes));
  return s.status();
}
REGISTER_GRADIENT_OP("Fill", FillGrad);

// ---- Concat ----

// Slices the gradient back into the concatenated pieces. `axis_input` is
// the axis operand; the axis is made non-negative for ConcatOffset.
Status ConcatGradCommon(const Scope& s, const Operation& op, const Output& axis_input,
                        int first_value, int num_values, const Output& g, Grads* value_grads) {
  OutputList values;
  for (int i = 0; i < num_values; ++i) values.push_back(op.input(first_value + i));
  Output axis;
  std::vector<int64_t> axis_value;
  const int rank = values[0].shape().dims();
  if (ConstantInts(axis_input, &axis_value) && axis_value.size() == 1 && rank >= 0) {
    const int64_t a = axis_value[0] < 0 ? axis_value[0] + rank : axis_value[0];
    axis = ScalarOfType(s, DT_INT32, static_cast<double>(a));
  } else {
    axis = ops::FloorMod(s, ops::Cast(s, axis_input, DT_INT32), ops::Rank(s, values[0]));
  }
  auto shapes = ops::ShapeN(s, InputList(values));
  auto offsets = ops::ConcatOffset(s, axis, InputList(shapes.output));
  AF_RETURN_IF_ERROR(s.status());
  for (int i = 0; i < num_values; ++i)
    value_grads->push_back(ops::Slice(s, g, offsets.offset[i], shapes.output[i]));
  return s.status();
}

Status ConcatGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(NoGradient());
  return ConcatGradCommon(s, op, op.input(0), 1, op.num_inputs() - 1, g[0], out);
}
REGISTER_GRADIENT_OP("Concat", ConcatGrad);

Status ConcatV2Grad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const int n = op.num_inputs() - 1;
  AF_RETURN_IF_ERROR(ConcatGradCommon(s, op, op.input(n), 0, n, g[0], out));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("ConcatV2", ConcatV2Grad);

Status SplitGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(NoGradient());
  out->push_back(ops::ConcatV2(s, InputList(g), op.input(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Split", SplitGrad);

Status SplitVGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::ConcatV2(s, InputList(g), op.input(2)));
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("SplitV", SplitVGrad);

// ---- Slicing ----

// The gradient padded with zeros back to the input: before = begin,
// after = input_shape - begin - output_shape.
Status SliceGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), begin = op.input(1);
  const DataType index = begin.type();
  auto in_shape = ops::Shape(s, x, ops::Shape::OutType(index));
  auto out_shape = ops::Shape(s, op.output(0), ops::Shape::OutType(index));
  auto after = ops::Sub(s, ops::Sub(s, in_shape, begin), out_shape);
  auto paddings = ops::Pack(s, {begin, after}, ops::Pack::Axis(1));
  out->push_back(ops::Pad(s, g[0], paddings));
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Slice", SliceGrad);

Status StridedSliceGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), begin = op.input(1), end = op.input(2), strides = op.input(3);
  auto shape = ops::Shape(s, x, ops::Shape::OutType(begin.type()));
  ops::StridedSliceGrad::Attrs attrs;
  CopyAttrs(op, {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"},
            &attrs.list);
  out->push_back(ops::StridedSliceGrad(s, shape, begin, end, strides, g[0], attrs));
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("StridedSlice", StridedSliceGradFn);

// ---- Pack / Unpack ----

Status PackGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(GetAttr(op, "axis", &axis));
  auto pieces = ops::Unpack(s, g[0], op.num_inputs(), ops::Unpack::Axis(axis));
  AF_RETURN_IF_ERROR(s.status());
  *out = pieces.output;
  return s.status();
}
REGISTER_GRADIENT_OP("Pack", PackGrad);

Status UnpackGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(GetAttr(op, "axis", &axis));
  out->push_back(ops::Pack(s, InputList(g), ops::Pack::Axis(axis)));
  return s.status();
}
REGISTER_GRADIENT_OP("Unpack", UnpackGrad);

// ---- Tile / Pad ----

// Reshapes the gradient to [m0, d0, m1, d1, ...] and sums over the
// multiples' axes (0, 2, 4, ...).
Status TileGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), multiples = op.input(1);
  auto in_shape = ops::Shape(s, x, ops::Shape::OutType(multiples.type()));
  auto pairs = ops::Transpose(s, ops::Pack(s, {multiples, in_shape}), {1, 0});
  auto split_shape = ops::Reshape(s, pairs, IndexVector(s, multiples.type(), {-1}));
  auto axes = ops::Range(s, 0, ops::Size(s, split_shape), 2);
  out->push_back(ops::Sum(s, ops::Reshape(s, g[0], split_shape), axes));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Tile", TileGrad);

// The gradient sliced back from the padded region: begin = paddings[:, 0].
Status PadGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output x = op.input(0), paddings = op.input(1);
  const DataType index = paddings.type();
  auto first_column = ops::Slice(s, paddings, IndexVector(s, index, {0, 0}),
                                 IndexVector(s, index, {-1, 1}));
  auto begin = ops::Reshape(s, first_column, IndexVector(s, index, {-1}));
  out->push_back(ops::Slice(s, g[0], begin, ops::Shape(s, x, ops::Shape::OutType(index))));
  for (int i = 1; i < op.num_inputs(); ++i) out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Pad", PadGrad);
REGISTER_GRADIENT_OP("PadV2", PadGrad);

// ---- Gather ----

// Scatters the gradient rows back to the params rows they were gathered
// from (summing repeats). A non-zero axis is moved to the front first and
// back after; that needs the params' rank at graph-building time.
Status GatherCommon(const Scope& s, const Output& params, const Output& indices, int64_t axis,
                    const Output& g, Output* params_grad) {
  const PartialTensorShape ps = params.shape();
  const int rank = ps.dims();
  if (axis != 0 && rank < 0)
    return errors::Unimplemented("the gradient of a gather along axis ", axis,
                                 " needs the params' rank at graph-building time");
  if (axis < 0) axis += rank;
  auto params_shape = ShapeOf(s, params);
  auto flat_indices = ops::Reshape(s, indices, IndexVector(s, indices.type(), {-1}));
  // g's shape is params[:axis] + indices.shape + params[axis+1:]; fold
  // the indices dims into one.
  auto outer = ops::Slice(s, params_shape, IndexVector(s, DT_INT32, {0}),
                          IndexVector(s, DT_INT32, {axis}));
  auto inner = ops::Slice(s, params_shape, IndexVector(s, DT_INT32, {axis + 1}),
                          IndexVector(s, DT_INT32, {-1}));
  auto values_shape = ops::ConcatV2(s, {outer, IndexVector(s, DT_INT32, {-1}), inner}, 0);
  Output values = ops::Reshape(s, g, values_shape);
  auto num_rows = ops::Reshape(s,
                               ops::Slice(s, params_shape, IndexVector(s, DT_INT32, {axis}),
                                          IndexVector(s, DT_INT32, {1})),
                               IndexVector(s, DT_INT32, {}));
  if (axis == 0) {
    *params_grad = ops::UnsortedSegmentSum(s, values, flat_indices, num_rows);
    return s.status();
  }
  std::vector<int64_t> to_front, to_back;
  to_front.push_back(axis);
  for (int d = 0; d < rank; ++d)
    if (d != axis) to_front.push_back(d);
  to_back.assign(rank, 0);
  for (int d = 0; d < rank; ++d) to_back[to_front[d]] = d;
  auto front = ops::Transpose(s, values, IndexVector(s, DT_INT32, to_front));
  auto summed = ops::UnsortedSegmentSum(s, front, flat_indices, num_rows);
  *params_grad = ops::Transpose(s, summed, IndexVector(s, DT_INT32, to_back));
  return s.status();
}

// A gather along axis 0 hands back only the rows it read (TensorFlow's
// IndexedSlices): an embedding lookup of k ids costs k rows, not the
// table. Other axes scatter into a tensor of the params' shape.
IndexedSlices GatheredRows(const Scope& s, const Output& params, const Output& indices,
                           const Output& g) {
  auto params_shape = ShapeOf(s, params);
  auto row_shape = ops::Slice(s, params_shape, IndexVector(s, DT_INT32, {1}),
                              IndexVector(s, DT_INT32, {-1}));
  IndexedSlices rows;
  rows.values =
      ops::Reshape(s, g, ops::ConcatV2(s, {IndexVector(s, DT_INT32, {-1}), row_shape}, 0));
  rows.indices = ops::Reshape(s, indices, IndexVector(s, indices.type(), {-1}));
  rows.dense_shape = params_shape;
  return rows;
}

Status GatherGrad(const Scope& s, const Operation& op, const Grads& g,
                  std::vector<GradientValue>* out) {
  out->push_back(GatheredRows(s, op.input(0), op.input(1), g[0]));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_SPARSE_GRADIENT_OP("Gather", GatherGrad);

// A batched gather (batch_dims B > 0, axis a >= B): each of the nb
// batches (params' first B dims, flattened) gathered from its own block of
// n = params[a] slices. Moving axis a to position B (and the gradient's
// index dims with it) makes every batch gather along B; offsetting batch
// b's indices by b * n then turns the whole thing into one scatter of rows
// into nb * n slices. Needs both ranks when the graph is built.
Status BatchGatherGrad(const Scope& s, const Output& params, const Output& indices,
                       int64_t batch_dims, int64_t axis, const Output& g, Output* params_grad) {
  const int rank = params.shape().dims(), index_rank = indices.shape().dims();
  if (rank < 0 || index_rank < 0)
    return errors::Unimplemented("the gradient of a batched gather needs the ranks of params "
                                 "and indices at graph-building time");
  if (batch_dims < 0) batch_dims += index_rank;
  if (axis < 0) axis += rank;
  if (batch_dims < 0 || batch_dims > index_rank || axis < batch_dims || axis >= rank)
    return errors::InvalidArgument("GatherV2 gradient: batch_dims ", batch_dims, " and axis ",
                                   axis, " do not fit params of rank ", rank,
                                   " and indices of rank ", index_rank);
  const int64_t b = batch_dims, m = index_rank - batch_dims;
  // params dims, with axis moved to position B; g's dims to match.
  std::vector<int64_t> params_perm, g_perm;
  for (int64_t d = 0; d < b; ++d) params_perm.push_back(d);
  params_perm.push_back(axis);
  for (int64_t d = b; d < rank; ++d)
    if (d != axis) params_perm.push_back(d);
  for (int64_t d = 0; d < b; ++d) g_perm.push_back(d);
  for (int64_t d = 0; d < m; ++d) g_perm.push_back(axis + d);
  for (int64_t d = b; d < axis; ++d) g_perm.push_back(d);
  for (int64_t d = axis + m; d < rank - 1 + m; ++d) g_perm.push_back(d);
  const DataType itype = indices.type();
  auto params_shape = ShapeOf(s, params);
  auto moved_shape = ops::Gather(s, params_shape, IndexVector(s, DT_INT32, params_perm));
  auto batch_shape = ops::Slice(s, moved_shape, IndexVector(s, DT_INT32, {0}),
                                IndexVector(s, DT_INT32, {b}));
  auto rest_shape = ops::Slice(s, moved_shape, IndexVector(s, DT_INT32, {b + 1}),
                               IndexVector(s, DT_INT32, {-1}));
  auto num_batches = ops::Prod(s, batch_shape, IndexVector(s, DT_INT32, {0}));
  auto n = ops::Reshape(s, ops::Slice(s, moved_shape, IndexVector(s, DT_INT32, {b}),
                                      IndexVector(s, DT_INT32, {1})),
                        IndexVector(s, DT_INT32, {}));
  // Batch k's indices + k * n, flattened.
  auto per_batch = ops::Reshape(s, indices, ops::ConcatV2(s, {ops::Reshape(s, num_batches,
                                                                        IndexVector(s, DT_INT32, {1})),
                                                               IndexVector(s, DT_INT32, {-1})},
                                                          0));
  auto offsets = ops::Mul(s, ops::Range(s, ScalarOfType(s, itype, 0),
                                        ops::Cast(s, num_batches, itype), ScalarOfType(s, itype, 1)),
                          ops::Cast(s, n, itype));
  auto flat_ids = ops::Reshape(
      s, ops::Add(s, per_batch, ops::ExpandDims(s, offsets, ScalarOfType(s, DT_INT32, 1))),
      IndexVector(s, itype, {-1}));
  auto moved_g = ops::Transpose(s, g, IndexVector(s, DT_INT32, g_perm));
  auto rows = ops::Reshape(s, moved_g,
                           ops::ConcatV2(s, {IndexVector(s, DT_INT32, {-1}), rest_shape}, 0));
  auto summed = ops::UnsortedSegmentSum(s, rows, flat_ids, ops::Mul(s, num_batches, n));
  auto moved_grad = ops::Reshape(s, summed, moved_shape);
  std::vector<int64_t> back(rank);
  for (int d = 0; d < rank; ++d) back[params_perm[d]] = d;
  *params_grad = ops::Transpose(s, moved_grad, IndexVector(s, DT_INT32, back));
  return s.status();
}

Status GatherV2Grad(const Scope& s, const Operation& op, const Grads& g,
                    std::vector<GradientValue>* out) {
  int64_t batch_dims = 0;
  GetAttr(op, "batch_dims", &batch_dims).ok();
  std::vector<int64_t> axis;
  if (!ConstantInts(op.input(2), &axis) || axis.size() != 1)
    return errors::Unimplemented("the gradient of GatherV2 needs a constant scalar axis");
  if (batch_dims != 0) {
    Output params_grad;
    AF_RETURN_IF_ERROR(BatchGatherGrad(s, op.input(0), op.input(1), batch_dims, axis[0], g[0],
                                       &params_grad));
    out->push_back(params_grad);
  } else if (axis[0] == 0) {
    out->push_back(GatheredRows(s, op.input(0), op.input(1), g[0]));
  } else {
    Output params_grad;
    AF_RETURN_IF_ERROR(GatherCommon(s, op.input(0), op.input(1), axis[0], g[0], &params_grad));
    out->push_back(params_grad);
  }
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_SPARSE_GRADIENT_OP("GatherV2", GatherV2Grad);

// Each data row goes where its segment id sent it: the gradient gathers
// the output gradient back by id. Rows with ids outside [0, num_segments)
// were dropped and get 0.
Status UnsortedSegmentSumGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output data = op.input(0), ids = op.input(1), num = op.input(2);
  const int data_rank = data.shape().dims();
  auto num_ids = ops::Cast(s, num, ids.type());
  auto valid = ops::LogicalAnd(s, ops::GreaterEqual(s, ids, ScalarOfType(s, ids.type(), 0)),
                               ops::Less(s, ids, num_ids));
  auto safe_ids = ops::SelectV2(s, valid, ids, ops::ZerosLike(s, ids));
  auto gathered = ops::Gather(s, g[0], safe_ids);
  // valid, shaped ids.shape + [1] * (rank(data) - rank(ids)) to broadcast.
  Output mask_dims;
  if (ids.shape().IsFullyDefined() && data_rank >= 0) {
    std::vector<int64_t> mask_shape = Dims(ids.shape());
    mask_shape.resize(data_rank, 1);
    mask_dims = IndexVector(s, DT_INT32, mask_shape);
  } else {
    // Shapes known only when the step runs: shape(ids) + [1] * (rank(data) - rank(ids)).
    auto extra = ops::Reshape(s, ops::Sub(s, ops::Rank(s, data), ops::Rank(s, ids)),
                              IndexVector(s, DT_INT32, {1}));
    mask_dims = ops::ConcatV2(s, {ops::Shape(s, ids), ops::Fill(s, extra, 1)}, 0);
  }
  auto mask = ops::Reshape(s, valid, mask_dims);
  out->push_back(ops::SelectV2(s, mask, gathered, ops::ZerosLike(s, gathered)));
  out->push_back(NoGradient());
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentSum", UnsortedSegmentSumGrad);

}  // namespace
}  // namespace grad
}  // namespace af
