// Cutting tensors apart: Split (equal pieces), SplitV (given sizes, one
// may be -1) and Unpack.
#include <numeric>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::CanonicalAxis;
using array_shape::ConstantInt;
using array_shape::ConstantInts;
using array_shape::Dims;

void SetAllOutputs(InferenceContext* c, const PartialTensorShape& shape) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shape);
}

// Resolves the split axis of `value` from input `axis_input`; *axis = -1
// when the axis or the rank is unknown.
Status SplitAxis(InferenceContext* c, const PartialTensorShape& value, int axis_input, int* axis) {
  *axis = -1;
  bool known = false;
  int64_t a = 0;
  AF_RETURN_IF_ERROR(ConstantInt(c, axis_input, "split_dim", &known, &a));
  if (value.unknown_rank() || !known) return Status::OK();
  return CanonicalAxis(c, a, value.dims(), "split_dim", axis);
}

Status SplitShape(InferenceContext* c) {
  const PartialTensorShape& value = c->input(1);
  int axis = -1;
  AF_RETURN_IF_ERROR(SplitAxis(c, value, 0, &axis));
  if (value.unknown_rank()) {
    SetAllOutputs(c, value);
    return Status::OK();
  }
  if (axis < 0) {
    SetAllOutputs(c, PartialTensorShape::UnknownOfRank(value.dims()));
    return Status::OK();
  }
  const int64_t num = c->num_outputs();
  std::vector<int64_t> dims = Dims(value);
  if (dims[axis] >= 0) {
    if (dims[axis] % num != 0)
      return c->InvalidArgument("Dimension size must be evenly divisible by ", num, " but is ",
                                dims[axis]);
    dims[axis] /= num;
  }
  SetAllOutputs(c, PartialTensorShape(dims));
  return Status::OK();
}

Status SplitVShape(InferenceContext* c) {
  const PartialTensorShape& value = c->input(0);
  PartialTensorShape ignored;
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &ignored));
  int axis = -1;
  AF_RETURN_IF_ERROR(SplitAxis(c, value, 2, &axis));
  if (value.unknown_rank()) {
    SetAllOutputs(c, value);
    return Status::OK();
  }
  if (axis < 0) {
    SetAllOutputs(c, PartialTensorShape::UnknownOfRank(value.dims()));
    return Status::OK();
  }
  std::vector<int64_t> dims = Dims(value);
  bool known = false;
  std::vector<int64_t> sizes;
  AF_RETURN_IF_ERROR(ConstantInts(c, 1, &known, &sizes));
  if (!known) {
    dims[axis] = -1;
    SetAllOutputs(c, PartialTensorShape(dims));
    return Status::OK();
  }
  if (static_cast<int>(sizes.size()) != c->num_outputs())
    return c->InvalidArgument("Length of size_splits should be equal to num_outputs: ",
                              sizes.size(), " vs. ", c->num_outputs());
  int infer = -1;
  int64_t sum = 0;
  for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
    if (sizes[i] == -1) {
      if (infer >= 0)
        return c->InvalidArgument(
            "Only one dimensions can have a value of -1. Second one "
            "found at dimension ",
            i);
      infer = i;
    } else if (sizes[i] < 0) {
      return c->InvalidArgument("size_splits[", i, "] = ", sizes[i], " must be >= -1");
    } else {
      sum += sizes[i];
    }
  }
  const int64_t total = dims[axis];
  if (total >= 0) {
    if (infer >= 0 && sum > total)
      return c->InvalidArgument("The specified sizes (sum ", sum,
                                ") exceed the dimension value along the split axis (", total, ")");
    if (infer < 0 && sum != total)
      return c->InvalidArgument(
          "Determined shape must either match input shape along "
          "split_dim exactly if fully specified, or be less than the "
          "size of the input along split_dim if not fully specified.  "
          "Got: ",
          sum, " vs. ", total);
    if (infer >= 0) sizes[infer] = total - sum;
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    dims[axis] = sizes[i];  // -1 stays unknown
    c->set_output(i, PartialTensorShape(dims));
  }
  return Status::OK();
}

Status UnpackShape(InferenceContext* c) {
  const PartialTensorShape& value = c->input(0);
  if (value.unknown_rank()) {
    SetAllOutputs(c, value);
    return Status::OK();
  }
  int64_t axis = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("axis", &axis)));
  int a = 0;
  AF_RETURN_IF_ERROR(CanonicalAxis(c, axis, value.dims(), "Unpack axis", &a));
  const int64_t have = value.dim_size(a);
  if (have >= 0 && have != c->num_outputs())
    return c->InvalidArgument("Dimension must be ", c->num_outputs(), " but is ", have,
                              " for unpacking ", value.DebugString(), " along axis ", a);
  std::vector<int64_t> dims = Dims(value);
  dims.erase(dims.begin() + a);
  SetAllOutputs(c, PartialTensorShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape)
    .Doc("Cuts value into num_split equal pieces along split_dim.");

REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn(SplitVShape)
    .Doc("Cuts value into pieces of the given sizes along split_dim.");

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape)
    .Doc("Unstacks value along axis into num tensors.");

}  // namespace af
