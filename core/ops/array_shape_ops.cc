// Ops about shapes: Shape, ShapeN, Size, Rank, the buffer-sharing shape
// changes Reshape, ExpandDims and Squeeze, BroadcastTo and
// BroadcastGradientArgs.
#include <algorithm>
#include <set>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::ConstantInt;
using array_shape::Dims;

PartialTensorShape Vector(int64_t n) { return PartialTensorShape({n}); }

Status ShapeShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i)
    c->set_output(i, Vector(c->input(i).unknown_rank() ? -1 : c->input(i).dims()));
  return Status::OK();
}

// The element count a target shape asks for, counting its non-zero known
// dims only (zero dims make every product 0, which says nothing about the
// dim to infer); -1 marks the dim to infer.
Status ReshapeShape(InferenceContext* c) {
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRankAtMost(1, 1, &ignored));
  PartialTensorShape target;
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &target));
  if (target.unknown_rank() || c->input_tensor(1) == nullptr) {
    c->set_output(0, target);
    return Status::OK();
  }
  std::vector<int64_t> dims = Dims(target);
  int infer = -1;
  int64_t product = 1;
  bool has_zero = false;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
    if (dims[i] == -1) {
      if (infer >= 0)
        return c->InvalidArgument("Cannot infer multiple unknown dimensions in shape ",
                                  target.DebugString());
      infer = i;
    } else if (dims[i] == 0) {
      has_zero = true;
    } else {
      product *= dims[i];
    }
  }
  const PartialTensorShape& in = c->input(0);
  if (!in.IsFullyDefined()) {
    c->set_output(0, target);
    return Status::OK();
  }
  const int64_t in_elements = in.num_elements();
  if (infer < 0) {
    const int64_t want = has_zero ? 0 : product;
    if (want != in_elements)
      return c->InvalidArgument("Cannot reshape a tensor with ", in_elements, " elements to shape ",
                                target.DebugString(), " (", want, " elements)");
  } else {
    // As the kernel: zero dims of the input count only when the target has
    // none, so [0,3] -> [-1,0] infers 3.
    int64_t counted = 1;
    for (int64_t d : in.dim_sizes())
      if (d > 0 || !has_zero) counted *= d;
    if (counted % product != 0)
      return c->InvalidArgument("Cannot reshape a tensor with ", in_elements, " elements to shape ",
                                target.DebugString(), ": the known dims ask for a multiple of ",
                                product);
    dims[infer] = counted / product;
    const int64_t total = has_zero ? 0 : counted;
    if (total != in_elements)
      return c->InvalidArgument("Cannot reshape a tensor with ", in_elements, " elements to shape ",
                                target.DebugString());
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  bool known = false;
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(ConstantInt(c, 1, "dim", &known, &axis));
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  const int rank = in.dims();
  if (!known) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(rank + 1));
    return Status::OK();
  }
  if (axis < -rank - 1 || axis > rank)
    return c->InvalidArgument("Tried to expand dim index ", axis, " for tensor with ", rank,
                              " dimensions.");
  if (axis < 0) axis += rank + 1;
  std::vector<int64_t> dims = Dims(in);
  dims.insert(dims.begin() + axis, 1);
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> squeeze_dims;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("squeeze_dims", &squeeze_dims)));
  const int rank = in.dims();
  std::set<int64_t> chosen;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank)
      return c->InvalidArgument("Tried to squeeze dim index ", d, " for tensor with ", rank,
                                " dimensions.");
    chosen.insert(d < 0 ? d + rank : d);
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = in.dim_size(i);
    if (chosen.count(i)) {
      if (d >= 0 && d != 1)
        return c->InvalidArgument("Can not squeeze dim[", i, "], expected a dimension of 1, got ",
                                  d);
      continue;
    }
    if (chosen.empty()) {
      if (d == 1) continue;
      if (d < 0) {  // might be 1 at run time: the rank is unknown
        c->set_output(0, PartialTensorShape::Unknown());
        return Status::OK();
      }
    }
    out.push_back(d);
  }
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status BroadcastToShape(InferenceContext* c) {
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &ignored));
  PartialTensorShape target;
  AF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &target));
  const PartialTensorShape& in = c->input(0);
  if (target.unknown_rank() || in.unknown_rank()) {
    c->set_output(0, target);
    return Status::OK();
  }
  if (in.dims() > target.dims())
    return c->InvalidArgument("Rank of input (", in.dims(),
                              ") must be no greater than rank of output shape (", target.dims(),
                              ").");
  std::vector<int64_t> dims = Dims(target);
  const int offset = target.dims() - in.dims();
  for (int i = 0; i < in.dims(); ++i) {
    const int64_t have = in.dim_size(i), want = dims[offset + i];
    if (have < 0 || have == 1) continue;
    if (want >= 0 && want != have)
      return c->InvalidArgument("Unable to broadcast tensor of shape ", in.DebugString(),
                                " to tensor of shape ", target.DebugString());
    dims[offset + i] = have;
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status BroadcastGradientArgsShape(InferenceContext* c) {
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &ignored));
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &ignored));
  c->set_output(0, Vector(-1));
  c->set_output(1, Vector(-1));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape)
    .Doc("The shape of a tensor as a vector.");

REGISTER_OP("ShapeN")
    .Input("input: N * T")
    .Output("output: N * out_type")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape)
    .Doc("The shapes of N tensors.");

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("The number of elements of a tensor.");

// TensorFlow's Rank has no out_type: it is always int32.
REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("The number of dims of a tensor.");

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(ReshapeShape)
    .Doc("The tensor under another shape; one dim may be -1 (inferred).");

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape)
    .Doc("Inserts a dim of size 1 at index dim.");

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape)
    .Doc("Removes dims of size 1 (those listed, or all).");

REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastToShape)
    .Doc("Broadcasts the input to the given shape (NumPy rules).");

REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastGradientArgsShape)
    .Doc("Dims to sum the gradient over for each operand of a broadcasting op.");

}  // namespace af
