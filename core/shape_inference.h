// Shape inference: each op's shape function sees its inputs' (partial)
// shapes, the values of constant inputs when known, and its attrs, and sets
// its outputs' shapes. It runs when a node is added to a graph.
#pragma once

#include <string_view>
#include <vector>

#include "core/node_def_util.h"
#include "core/op_registry.h"  // ShapeFn
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

namespace af {

class InferenceContext {
 public:
  // input_tensors[i] is the value of input i if known (a Const), or nullptr.
  InferenceContext(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                   std::vector<PartialTensorShape> input_shapes,
                   std::vector<const Tensor*> input_tensors);

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const PartialTensorShape& input(int i) const { return inputs_[i]; }
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  const PartialTensorShape& output(int i) const { return outputs_[i]; }
  void set_output(int i, PartialTensorShape shape) { outputs_[i] = std::move(shape); }
  const std::vector<PartialTensorShape>& outputs() const { return outputs_; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  const tensorflow::NodeDef& node_def() const { return node_; }
  const tensorflow::OpDef& op_def() const { return op_def_; }
  template <typename T>
  Status GetAttr(std::string_view name, T* value) const {
    return GetNodeAttr(node_, name, value);
  }

  // Helpers; errors name the node and the op.
  Status WithRank(int input, int rank, PartialTensorShape* out) const;
  Status WithRankAtLeast(int input, int rank, PartialTensorShape* out) const;
  Status WithRankAtMost(int input, int rank, PartialTensorShape* out) const;
  Status Merge(const PartialTensorShape& a, const PartialTensorShape& b,
               PartialTensorShape* out) const;
  // NumPy broadcasting of two shapes (unknown dims stay unknown unless the
  // other side fixes them).
  Status BroadcastBinary(const PartialTensorShape& a, const PartialTensorShape& b,
                         PartialTensorShape* out) const;
  // Reads a shape from a constant int32/int64 1-D input ("shape" inputs of
  // Reshape, Fill, ...). Unknown if the value is not known.
  Status MakeShapeFromShapeTensor(int input, PartialTensorShape* out) const;
  // An error with the node's name and op prefixed.
  Status Error(const Status& cause) const;
  template <typename... Args>
  Status InvalidArgument(const Args&... args) const {
    return Error(errors::InvalidArgument(args...));
  }

 private:
  const tensorflow::NodeDef& node_;
  const tensorflow::OpDef& op_def_;
  std::vector<PartialTensorShape> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialTensorShape> outputs_;
  DataTypeVector input_types_, output_types_;
};

// Shape functions shared by many ops.
namespace shape_fn {
Status UnknownShape(InferenceContext* c);         // every output unknown
Status UnchangedShape(InferenceContext* c);       // output 0 = input 0
Status ScalarShape(InferenceContext* c);          // output 0 = []
Status NoOutputs(InferenceContext* c);
Status BroadcastBinaryOp(InferenceContext* c);    // NumPy broadcasting of inputs 0, 1
Status MatMulShape(InferenceContext* c);          // with transpose_a / transpose_b
Status BiasAddShape(InferenceContext* c);
Status ShapeFromShapeAttr(InferenceContext* c);   // output 0 = attr "shape"
Status MergeAllInputs(InferenceContext* c);       // output 0 = merge of all inputs (AddN)
}  // namespace shape_fn

// Runs the registered shape function of `node` (UnknownShape when the op has
// none). Errors name the node.
Status InferShapes(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                   const ShapeFn& fn, const std::vector<PartialTensorShape>& input_shapes,
                   const std::vector<const Tensor*>& input_tensors,
                   std::vector<PartialTensorShape>* output_shapes);

}  // namespace af
