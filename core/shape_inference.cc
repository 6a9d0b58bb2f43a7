#include "core/shape_inference.h"

#include <algorithm>

#include "core/attr_value_util.h"
#include "core/op_registry.h"

namespace af {
namespace {

PartialTensorShape Scalar() { return PartialTensorShape(TensorShape{}); }

}  // namespace

InferenceContext::InferenceContext(const tensorflow::NodeDef& node,
                                   const tensorflow::OpDef& op_def,
                                   std::vector<PartialTensorShape> input_shapes,
                                   std::vector<const Tensor*> input_tensors)
    : node_(node),
      op_def_(op_def),
      inputs_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)) {
  // A node whose signature does not resolve gets no typed ports; InferShapes
  // reports that error before any shape function runs.
  if (!InOutTypesForNode(node_, op_def_, &input_types_, &output_types_).ok()) {
    input_types_.clear();
    output_types_.clear();
  }
  input_tensors_.resize(inputs_.size(), nullptr);
  outputs_.assign(output_types_.size(), PartialTensorShape::Unknown());
}

Status InferenceContext::Error(const Status& cause) const {
  if (cause.ok()) return cause;
  const std::string prefix = NodeContext(node_);
  if (cause.message().starts_with(prefix)) return cause;
  return NodeStatus(node_, cause);
}

Status InferenceContext::WithRank(int input, int rank, PartialTensorShape* out) const {
  const PartialTensorShape& s = inputs_[input];
  if (s.unknown_rank()) {
    *out = PartialTensorShape::UnknownOfRank(rank);
    return Status::OK();
  }
  if (s.dims() != rank)
    return InvalidArgument("input ", input, " must be rank ", rank, " but is rank ", s.dims(),
                           " (shape ", s.DebugString(), ")");
  *out = s;
  return Status::OK();
}

Status InferenceContext::WithRankAtLeast(int input, int rank, PartialTensorShape* out) const {
  const PartialTensorShape& s = inputs_[input];
  if (!s.unknown_rank() && s.dims() < rank)
    return InvalidArgument("input ", input, " must be at least rank ", rank, " but is rank ",
                           s.dims(), " (shape ", s.DebugString(), ")");
  *out = s;
  return Status::OK();
}

Status InferenceContext::WithRankAtMost(int input, int rank, PartialTensorShape* out) const {
  const PartialTensorShape& s = inputs_[input];
  if (!s.unknown_rank() && s.dims() > rank)
    return InvalidArgument("input ", input, " must be at most rank ", rank, " but is rank ",
                           s.dims(), " (shape ", s.DebugString(), ")");
  *out = s;
  return Status::OK();
}

Status InferenceContext::Merge(const PartialTensorShape& a, const PartialTensorShape& b,
                               PartialTensorShape* out) const {
  Status s = a.MergeWith(b, out);
  if (!s.ok())
    return InvalidArgument("shapes ", a.DebugString(), " and ", b.DebugString(),
                           " are not compatible: ", s.message());
  return s;
}

Status InferenceContext::BroadcastBinary(const PartialTensorShape& a,
                                         const PartialTensorShape& b,
                                         PartialTensorShape* out) const {
  if (a.unknown_rank() || b.unknown_rank()) {
    *out = PartialTensorShape::Unknown();
    return Status::OK();
  }
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    // Align from the right; a missing leading dim acts as 1.
    const int ia = a.dims() - rank + i, ib = b.dims() - rank + i;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    int64_t d;
    if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0) d = db;  // the other side is known and not 1, or both unknown
    else if (db < 0) d = da;
    else if (da == db) d = da;
    else
      return InvalidArgument("Incompatible shapes: ", a.DebugString(), " vs. ",
                             b.DebugString());
    dims[i] = d;
  }
  *out = PartialTensorShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromShapeTensor(int input, PartialTensorShape* out) const {
  const Tensor* t = input_tensors_[input];
  const PartialTensorShape& shape_of_shape = inputs_[input];
  if (!t) {
    // The value is unknown, but a shape vector of known length fixes the rank.
    if (!shape_of_shape.unknown_rank() && shape_of_shape.dims() == 1 &&
        shape_of_shape.dim_size(0) >= 0)
      *out = PartialTensorShape::UnknownOfRank(static_cast<int>(shape_of_shape.dim_size(0)));
    else
      *out = PartialTensorShape::Unknown();
    return Status::OK();
  }
  if (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)
    return InvalidArgument("input ", input, " must be int32 or int64 to be a shape, not ",
                           DataTypeString(t->dtype()));
  auto value = [&](int64_t i) {
    return t->dtype() == DT_INT32 ? int64_t{t->data<int32_t>()[i]} : t->data<int64_t>()[i];
  };
  if (t->dims() == 0) {
    // A scalar -1 stands for a shape of unknown rank.
    if (value(0) == -1) {
      *out = PartialTensorShape::Unknown();
      return Status::OK();
    }
    return InvalidArgument("input ", input, " must be a vector to be a shape, got scalar ",
                           value(0));
  }
  if (t->dims() != 1)
    return InvalidArgument("input ", input, " must be a vector to be a shape, got shape ",
                           t->shape().DebugString());
  std::vector<int64_t> dims(t->NumElements());
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    dims[i] = value(i);
    if (dims[i] < -1)
      return InvalidArgument("input ", input, " has dimension ", dims[i],
                             "; dimensions must be >= -1");
  }
  *out = PartialTensorShape(dims);
  return Status::OK();
}

namespace shape_fn {

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape::Unknown());
  return Status::OK();
}

Status UnchangedShape(InferenceContext* c) {
  if (c->num_outputs() > 0 && c->num_inputs() > 0) c->set_output(0, c->input(0));
  return Status::OK();
}

Status ScalarShape(InferenceContext* c) {
  if (c->num_outputs() > 0) c->set_output(0, Scalar());
  return Status::OK();
}

Status NoOutputs(InferenceContext* c) {
  if (c->num_outputs() != 0)
    return c->InvalidArgument("shape function expects no outputs, op has ", c->num_outputs());
  return Status::OK();
}

Status BroadcastBinaryOp(InferenceContext* c) {
  if (c->num_inputs() < 2) return c->InvalidArgument("binary op needs two inputs");
  PartialTensorShape out;
  AF_RETURN_IF_ERROR(c->BroadcastBinary(c->input(0), c->input(1), &out));
  c->set_output(0, std::move(out));
  return Status::OK();
}

Status MatMulShape(InferenceContext* c) {
  PartialTensorShape a, b;
  AF_RETURN_IF_ERROR(c->WithRank(0, 2, &a));
  AF_RETURN_IF_ERROR(c->WithRank(1, 2, &b));
  bool transpose_a = false, transpose_b = false;
  if (HasNodeAttr(c->node_def(), "transpose_a"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("transpose_a", &transpose_a)));
  if (HasNodeAttr(c->node_def(), "transpose_b"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("transpose_b", &transpose_b)));
  const int64_t rows = a.dim_size(transpose_a ? 1 : 0);
  const int64_t inner_a = a.dim_size(transpose_a ? 0 : 1);
  const int64_t inner_b = b.dim_size(transpose_b ? 1 : 0);
  const int64_t cols = b.dim_size(transpose_b ? 0 : 1);
  if (inner_a >= 0 && inner_b >= 0 && inner_a != inner_b)
    return c->InvalidArgument("Matrix size-incompatible: In[0]: ", c->input(0).DebugString(),
                              ", In[1]: ", c->input(1).DebugString(),
                              " (transpose_a=", transpose_a ? "true" : "false",
                              ", transpose_b=", transpose_b ? "true" : "false", ")");
  c->set_output(0, PartialTensorShape({rows, cols}));
  return Status::OK();
}

Status BiasAddShape(InferenceContext* c) {
  std::string format = "NHWC";
  if (HasNodeAttr(c->node_def(), "data_format"))
    AF_RETURN_IF_ERROR(c->Error(c->GetAttr("data_format", &format)));
  PartialTensorShape value, bias;
  AF_RETURN_IF_ERROR(c->WithRankAtLeast(0, format == "NCHW" ? 3 : 2, &value));
  AF_RETURN_IF_ERROR(c->WithRank(1, 1, &bias));
  if (value.unknown_rank()) {
    c->set_output(0, value);
    return Status::OK();
  }
  // NHWC: channels last. NCHW: channels third from the end (N, C, spatial...).
  const int channel = format == "NCHW" ? value.dims() - 3 : value.dims() - 1;
  const int64_t have = value.dim_size(channel), want = bias.dim_size(0);
  if (have >= 0 && want >= 0 && have != want)
    return c->InvalidArgument("bias of size ", want, " does not match dimension ", channel,
                              " of value ", value.DebugString(), " (data_format ", format, ")");
  std::vector<int64_t> dims(value.dim_sizes().begin(), value.dim_sizes().end());
  if (dims[channel] < 0) dims[channel] = want;
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status ShapeFromShapeAttr(InferenceContext* c) {
  PartialTensorShape shape;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("shape", &shape)));
  c->set_output(0, std::move(shape));
  return Status::OK();
}

Status MergeAllInputs(InferenceContext* c) {
  PartialTensorShape merged = PartialTensorShape::Unknown();
  for (int i = 0; i < c->num_inputs(); ++i)
    AF_RETURN_IF_ERROR(c->Merge(merged, c->input(i), &merged));
  if (c->num_outputs() > 0) c->set_output(0, std::move(merged));
  return Status::OK();
}

}  // namespace shape_fn

Status InferShapes(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                   const ShapeFn& fn, const std::vector<PartialTensorShape>& input_shapes,
                   const std::vector<const Tensor*>& input_tensors,
                   std::vector<PartialTensorShape>* output_shapes) {
  DataTypeVector in_types, out_types;
  AF_RETURN_IF_ERROR(InOutTypesForNode(node, op_def, &in_types, &out_types));
  if (input_shapes.size() != in_types.size())
    return errors::InvalidArgument(NodeContext(node), ": shape inference got ",
                                   input_shapes.size(), " input shapes for ", in_types.size(),
                                   " inputs");
  if (input_tensors.size() > input_shapes.size())
    return errors::InvalidArgument(NodeContext(node), ": shape inference got ",
                                   input_tensors.size(), " input tensors for ",
                                   input_shapes.size(), " inputs");
  InferenceContext c(node, op_def, input_shapes, input_tensors);
  Status s = fn ? fn(&c) : shape_fn::UnknownShape(&c);
  if (!s.ok()) return c.Error(s);
  *output_shapes = c.outputs();
  return Status::OK();
}

}  // namespace af
