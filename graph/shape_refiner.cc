#include "graph/shape_refiner.h"

#include "core/attr_value_util.h"
#include "core/node_def_util.h"
#include "core/shape_inference.h"
#include "core/tensor_proto.h"

namespace af {

namespace {

// Shape functions only look at small constants (shapes, axes, scalars);
// decoding large weight tensors for them would copy megabytes for nothing.
constexpr int64_t kMaxConstElementsForShapeInference = 4096;
constexpr int64_t kMaxConstBytesForShapeInference = 1 << 20;

// Element count a TensorProto claims, or -1 if its shape is unusable.
int64_t ClaimedElements(const tensorflow::TensorProto& proto) {
  if (proto.tensor_shape().unknown_rank()) return -1;
  int64_t n = 1;
  for (const auto& dim : proto.tensor_shape().dim()) {
    if (dim.size() < 0) return -1;
    if (dim.size() > 0 && n > kMaxConstElementsForShapeInference / dim.size() + 1) return -1;
    n *= dim.size();
  }
  return n;
}

template <typename T>
Tensor DimsTensor(const PartialTensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape{shape.dims()});
  for (int d = 0; d < shape.dims(); ++d) t.data<T>()[d] = static_cast<T>(shape.dim_size(d));
  return t;
}

template <typename T>
Tensor ScalarOf(int64_t v) {
  return Tensor::Scalar<T>(static_cast<T>(v));
}

}  // namespace

ShapeRefiner::ShapeRefiner(const Graph& graph, ShapeRefinerOptions options)
    : graph_(graph), options_(options) {}

Status ShapeRefiner::RefineNode(Node* n) {
  input_shapes_.assign(n->num_inputs(), PartialTensorShape::Unknown());
  input_tensors_.assign(n->num_inputs(), nullptr);
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge() || e->dst_input() >= n->num_inputs()) continue;
    const Node* src = e->src();
    if (e->src_output() < static_cast<int>(src->output_shapes().size()))
      input_shapes_[e->dst_input()] = src->output_shapes()[e->src_output()];
    AF_RETURN_IF_ERROR(ConstantOutput(src, e->src_output(), &input_tensors_[e->dst_input()]));
  }
  const OpRegistrationData* reg = graph_.op_registry()->LookUp(n->type_string());
  static const ShapeFn kNoShapeFn;
  output_shapes_.clear();
  AF_RETURN_IF_ERROR(InferShapes(n->def(), n->op_def(), reg ? reg->shape_fn : kNoShapeFn,
                                 input_shapes_, input_tensors_, &output_shapes_));
  output_shapes_.resize(n->num_outputs(), PartialTensorShape::Unknown());
  n->set_output_shapes(output_shapes_);
  return Status::OK();
}

Status ShapeRefiner::ConstantOutput(const Node* n, int port, const Tensor** out) {
  *out = nullptr;
  if (port != 0) return Status::OK();
  const bool shape_op = options_.evaluate_shape_ops &&
                        (n->type_string() == "Shape" || n->type_string() == "Size" ||
                         n->type_string() == "Rank");
  if (!n->IsConstant() && !shape_op) return Status::OK();
  if (static_cast<int>(values_.size()) <= n->id()) {
    values_.resize(graph_.num_node_ids());
    evaluated_.resize(graph_.num_node_ids(), false);
  }
  if (!evaluated_[n->id()]) {
    evaluated_[n->id()] = true;
    if (shape_op) {
      EvaluateShapeOp(n, &values_[n->id()]);
    } else {
      AF_RETURN_IF_ERROR(DecodeConst(n, &values_[n->id()]));
    }
  }
  if (values_[n->id()]) *out = &*values_[n->id()];
  return Status::OK();
}

Status ShapeRefiner::DecodeConst(const Node* n, std::optional<Tensor>* value) {
  const tensorflow::TensorProto* proto = nullptr;
  if (!GetNodeAttr(n->def(), "value", &proto).ok()) return Status::OK();
  const int64_t elements = ClaimedElements(*proto);
  if (elements < 0 || elements > kMaxConstElementsForShapeInference) return Status::OK();
  TensorProtoLimits limits;
  limits.max_tensor_bytes = kMaxConstBytesForShapeInference;
  Tensor t;
  Status s = TensorFromProto(*proto, limits, &t);
  if (s.code() == Code::RESOURCE_EXHAUSTED) return Status::OK();  // long strings: skip
  if (!s.ok()) return s.WithContext(NodeContext(n->def()) + ": invalid value");
  *value = std::move(t);
  return Status::OK();
}

// Shape/Size/Rank are known once their input's shape is; anything else
// (unknown dims, unexpected attrs) leaves the value unknown.
void ShapeRefiner::EvaluateShapeOp(const Node* n, std::optional<Tensor>* value) {
  const Edge* in = nullptr;
  if (!n->input_edge(0, &in).ok()) return;
  const Node* src = in->src();
  if (in->src_output() >= static_cast<int>(src->output_shapes().size())) return;
  const PartialTensorShape& shape = src->output_shapes()[in->src_output()];
  DataType out_type = n->output_type(0);
  if (n->type_string() == "Rank") {
    if (shape.unknown_rank()) return;
    *value = ScalarOf<int32_t>(shape.dims());
    return;
  }
  if (!shape.IsFullyDefined()) return;
  if (n->type_string() == "Size") {
    if (out_type == DT_INT32) *value = ScalarOf<int32_t>(shape.num_elements());
    if (out_type == DT_INT64) *value = ScalarOf<int64_t>(shape.num_elements());
    return;
  }
  if (out_type == DT_INT32) *value = DimsTensor<int32_t>(shape);
  if (out_type == DT_INT64) *value = DimsTensor<int64_t>(shape);
}

}  // namespace af
