// Reading attrs of NodeDefs, checking NodeDefs against their OpDef, and
// computing a node's input and output types.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

namespace af {

// Typed attr access. NOT_FOUND if missing, INVALID_ARGUMENT if the attr has
// another type; both messages name the node and the attr.
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, int64_t* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, int32_t* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, float* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, bool* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::string* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, DataType* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, PartialTensorShape* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, TensorShape* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, Tensor* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<int64_t>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<int32_t>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<float>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<std::string>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<DataType>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<PartialTensorShape>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, const tensorflow::TensorProto** value);
bool HasNodeAttr(const tensorflow::NodeDef& node, std::string_view name);

// Setting attrs (for graph construction and rewriting).
void SetAttr(tensorflow::NodeDef* node, const std::string& name, int64_t value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, int value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, float value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, bool value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const std::string& value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const char* value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, DataType value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const PartialTensorShape& value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const Tensor& value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const std::vector<int64_t>& value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const std::vector<std::string>& value);
void SetAttr(tensorflow::NodeDef* node, const std::string& name, const std::vector<DataType>& value);

// Fills attrs the node leaves out with their OpDef defaults.
void AddDefaultsToNodeDef(const tensorflow::OpDef& op_def, tensorflow::NodeDef* node);

// Checks a NodeDef (with defaults added) against its OpDef: every attr
// present, of the declared type, within allowed values and minimums, no
// unknown attrs (those starting with '_' are allowed), and the number of
// data inputs equal to what the signature implies. Messages name the node,
// the op and the offending attr or input.
Status ValidateNodeDef(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def);

// Resolves the signature's type attrs and number attrs into per-port types.
Status InOutTypesForNode(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                         DataTypeVector* inputs, DataTypeVector* outputs);

// Index range [start, stop) of the ports that make up the named input or
// output arg of a node ("values" of Concat spans N ports).
Status NameRangeForArg(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                       std::string_view arg_name, bool is_input, int* start, int* stop);

// "{{node name}} = Op[T=float, transpose_a=false](in1, in2)", for errors.
std::string SummarizeNodeDef(const tensorflow::NodeDef& node);
std::string SummarizeAttrValue(const tensorflow::AttrValue& value);

// Splits "node:3" -> ("node", 3), "node" -> ("node", 0), "^node" ->
// ("node", -1) for control inputs. INVALID_ARGUMENT for malformed names.
struct TensorId {
  std::string node;
  int index = 0;  // -1 for a control input
  bool is_control() const { return index < 0; }
  std::string ToString() const;  // "node:3" or "^node"
};
Status ParseTensorName(std::string_view name, TensorId* out);

}  // namespace af
