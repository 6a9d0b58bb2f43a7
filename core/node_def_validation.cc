// Checking NodeDefs against their OpDef and resolving their signatures into
// per-port types.
#include "core/attr_value_util.h"
#include "core/node_def_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using tensorflow::OpDef;

// More ports than any real node has; a NodeDef claiming more is rejected
// before anything proportional to the claim is allocated.
constexpr int64_t kMaxPortsPerArg = int64_t{1} << 20;

std::string ArgSignature(const OpDef::ArgDef& arg) {
  std::string type;
  if (!arg.type_list_attr().empty()) type = arg.type_list_attr();
  else if (!arg.type_attr().empty()) type = arg.type_attr();
  else type = DataTypeString(static_cast<DataType>(arg.type()));
  if (!arg.number_attr().empty()) type = arg.number_attr() + "*" + type;
  if (arg.is_ref()) type = "Ref(" + type + ")";
  return arg.name() + ":" + type;
}

// "Op<name=MatMul; signature=a:T, b:T -> product:T>", as TensorFlow names
// the op in validation errors.
std::string SummarizeOp(const OpDef& op) {
  std::string out = "Op<name=" + op.name() + "; signature=";
  for (int i = 0; i < op.input_arg_size(); ++i)
    out += (i ? ", " : "") + ArgSignature(op.input_arg(i));
  out += " -> ";
  for (int i = 0; i < op.output_arg_size(); ++i)
    out += (i ? ", " : "") + ArgSignature(op.output_arg(i));
  for (const auto& attr : op.attr()) {
    out += "; attr=" + attr.name() + ":" + attr.type();
    if (attr.has_default_value()) out += ",default=" + SummarizeAttrValue(attr.default_value());
  }
  return out + ">";
}

// The types of the ports one arg of `node` expands to.
Status ArgTypes(const NodeDef& node, const OpDef::ArgDef& arg, DataTypeVector* out) {
  const size_t first = out->size();
  if (!arg.type_list_attr().empty()) {
    DataTypeVector types;
    AF_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &types));
    out->insert(out->end(), types.begin(), types.end());
  } else {
    int64_t n = 1;
    if (!arg.number_attr().empty()) {
      AF_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &n));
      if (n < 0 || n > kMaxPortsPerArg)
        return errors::InvalidArgument(NodeContext(node), ": attr '", arg.number_attr(),
                                       "' = ", n, " is not a valid length for arg '",
                                       arg.name(), "'");
    }
    DataType dt = static_cast<DataType>(arg.type());
    if (!arg.type_attr().empty()) AF_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr(), &dt));
    if (dt == DT_INVALID)
      return errors::InvalidArgument(NodeContext(node), ": arg '", arg.name(),
                                     "' has no type");
    out->insert(out->end(), static_cast<size_t>(n), dt);
  }
  if (arg.is_ref())
    for (size_t i = first; i < out->size(); ++i) (*out)[i] = MakeRefType((*out)[i]);
  return Status::OK();
}

Status SignatureTypes(const NodeDef& node,
                      const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
                      DataTypeVector* out) {
  out->clear();
  for (const auto& arg : args) AF_RETURN_IF_ERROR(ArgTypes(node, arg, out));
  return Status::OK();
}

std::string TypeList(const DataTypeVector& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + DataTypeString(types[i]);
  return out;
}

}  // namespace

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node) {
  for (const auto& attr : op_def.attr()) {
    if (!attr.has_default_value() || node->attr().count(attr.name())) continue;
    (*node->mutable_attr())[attr.name()] = attr.default_value();
  }
}

Status ValidateNodeDef(const NodeDef& node, const OpDef& op_def) {
  const std::string where = NodeContext(node);
  if (node.op() != op_def.name())
    return errors::InvalidArgument(where, ": NodeDef op '", node.op(),
                                   "' does not match ", SummarizeOp(op_def));

  int data_inputs = 0;
  bool seen_control = false;
  for (const std::string& input : node.input()) {
    if (input.starts_with('^')) {
      seen_control = true;
      continue;
    }
    if (seen_control)
      return errors::InvalidArgument(where, ": data input '", input,
                                     "' follows a control input");
    ++data_inputs;
  }

  for (const auto& [name, value] : node.attr()) {
    if (name.starts_with('_')) continue;  // internal attrs (_class, _output_shapes, ...)
    const OpDef::AttrDef* def = nullptr;
    for (const auto& a : op_def.attr())
      if (a.name() == name) def = &a;
    if (!def)
      return errors::InvalidArgument(where, ": NodeDef mentions attr '", name, "' not in ",
                                     SummarizeOp(op_def), "; NodeDef: ", SummarizeNodeDef(node));
    Status s = ValidateAttrValue(value, *def);
    if (!s.ok()) return errors::InvalidArgument(where, ": ", s.message());
  }
  for (const auto& attr : op_def.attr()) {
    if (!node.attr().count(attr.name()))
      return errors::InvalidArgument(where, ": NodeDef missing attr '", attr.name(),
                                     "' from ", SummarizeOp(op_def));
  }

  DataTypeVector inputs;
  AF_RETURN_IF_ERROR(SignatureTypes(node, op_def.input_arg(), &inputs));
  if (static_cast<int>(inputs.size()) != data_inputs)
    return errors::InvalidArgument(where, ": expected ", inputs.size(), " data inputs (",
                                   TypeList(inputs), ") but the NodeDef has ", data_inputs,
                                   "; NodeDef: ", SummarizeNodeDef(node));
  return Status::OK();
}

Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def, DataTypeVector* inputs,
                         DataTypeVector* outputs) {
  AF_RETURN_IF_ERROR(SignatureTypes(node, op_def.input_arg(), inputs));
  return SignatureTypes(node, op_def.output_arg(), outputs);
}

Status NameRangeForArg(const NodeDef& node, const OpDef& op_def, std::string_view arg_name,
                       bool is_input, int* start, int* stop) {
  const auto& args = is_input ? op_def.input_arg() : op_def.output_arg();
  DataTypeVector types;
  for (const auto& arg : args) {
    const int begin = static_cast<int>(types.size());
    AF_RETURN_IF_ERROR(ArgTypes(node, arg, &types));
    if (arg.name() == arg_name) {
      *start = begin;
      *stop = static_cast<int>(types.size());
      return Status::OK();
    }
  }
  return errors::NotFound(NodeContext(node), ": ", SummarizeOp(op_def), " has no ",
                          is_input ? "input" : "output", " named '", arg_name, "'");
}

}  // namespace af
