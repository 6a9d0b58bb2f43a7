// Typed attr access on NodeDefs, node summaries for error messages, and
// tensor-name parsing.
#include "core/node_def_util.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/attr_value_util.h"
#include "core/tensor_proto.h"
#include "core/tensor_shape_proto.h"

namespace af {
namespace {

using tensorflow::AttrValue;
using tensorflow::NodeDef;

// The attr `name` of `node` if it holds a value of attr type `type`.
Status FindAttr(const NodeDef& node, std::string_view name, std::string_view type,
                const AttrValue** out) {
  auto it = node.attr().find(std::string(name));
  if (it == node.attr().end())
    return errors::NotFound(NodeContext(node), ": no attr named '", name, "'");
  Status s = AttrValueHasType(it->second, type);
  if (!s.ok())
    return errors::InvalidArgument(NodeContext(node), ": attr '", name, "': ", s.message());
  *out = &it->second;
  return Status::OK();
}

Status AttrError(const NodeDef& node, std::string_view name, const Status& cause) {
  return Status(cause.code(), NodeContext(node) + ": attr '" + std::string(name) +
                                  "': " + cause.message());
}

Status CheckInt32(const NodeDef& node, std::string_view name, int64_t v) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    return errors::InvalidArgument(NodeContext(node), ": attr '", name, "' value ", v,
                                   " does not fit in int32");
  return Status::OK();
}

AttrValue& Slot(NodeDef* node, const std::string& name) {
  AttrValue& v = (*node->mutable_attr())[name];
  v.Clear();
  return v;
}

std::string CEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
      }
    }
  }
  return out;
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "lit" + string.
std::string Quote(std::string_view s) {
  std::string out(1, '"');
  out += CEscape(s);
  out += '"';
  return out;
}

std::string FloatString(float f) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), f);
  return ec == std::errc() ? std::string(buf, end) : "?";
}

std::string ShapeString(const tensorflow::TensorShapeProto& proto) {
  PartialTensorShape shape;
  if (!ShapeFromProto(proto, &shape).ok()) return "<invalid shape>";
  return shape.DebugString();
}

std::string TensorString(const tensorflow::TensorProto& proto) {
  // Summaries must stay cheap even for huge constants: decode small ones only.
  TensorProtoLimits limits;
  limits.max_tensor_bytes = 1 << 12;
  Tensor t;
  if (TensorFromProto(proto, limits, &t).ok()) return t.DebugString();
  return "<Tensor type: " + DataTypeString(static_cast<DataType>(proto.dtype())) +
         " shape: " + ShapeString(proto.tensor_shape()) + ">";
}

std::string FuncString(const tensorflow::NameAttrList& func) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : func.attr()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  std::string out = func.name();
  if (keys.empty()) return out;
  out += "[";
  for (size_t i = 0; i < keys.size(); ++i)
    out += (i ? ", " : "") + keys[i] + "=" + SummarizeAttrValue(func.attr().at(keys[i]));
  return out + "]";
}

}  // namespace

// ---- GetNodeAttr ----

Status GetNodeAttr(const NodeDef& node, std::string_view name, int64_t* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "int", &v));
  *value = v->i();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, int32_t* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "int", &v));
  AF_RETURN_IF_ERROR(CheckInt32(node, name, v->i()));
  *value = static_cast<int32_t>(v->i());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, float* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "float", &v));
  *value = v->f();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, bool* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "bool", &v));
  *value = v->b();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, std::string* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "string", &v));
  *value = v->s();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, DataType* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "type", &v));
  *value = static_cast<DataType>(v->type());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, PartialTensorShape* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "shape", &v));
  Status s = ShapeFromProto(v->shape(), value);
  return s.ok() ? s : AttrError(node, name, s);
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, TensorShape* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "shape", &v));
  Status s = ShapeFromProto(v->shape(), value);
  return s.ok() ? s : AttrError(node, name, s);
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, Tensor* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "tensor", &v));
  Status s = TensorFromProto(v->tensor(), value);
  return s.ok() ? s : AttrError(node, name, s);
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, std::vector<int64_t>* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "list(int)", &v));
  value->assign(v->list().i().begin(), v->list().i().end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, std::vector<int32_t>* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "list(int)", &v));
  std::vector<int32_t> out;
  out.reserve(v->list().i_size());
  for (int64_t i : v->list().i()) {
    AF_RETURN_IF_ERROR(CheckInt32(node, name, i));
    out.push_back(static_cast<int32_t>(i));
  }
  *value = std::move(out);
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, std::vector<float>* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "list(float)", &v));
  value->assign(v->list().f().begin(), v->list().f().end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name,
                   std::vector<std::string>* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "list(string)", &v));
  value->assign(v->list().s().begin(), v->list().s().end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name, std::vector<DataType>* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "list(type)", &v));
  value->clear();
  for (int t : v->list().type()) value->push_back(static_cast<DataType>(t));
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name,
                   std::vector<PartialTensorShape>* value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "list(shape)", &v));
  std::vector<PartialTensorShape> out(v->list().shape_size());
  for (int i = 0; i < v->list().shape_size(); ++i) {
    Status s = ShapeFromProto(v->list().shape(i), &out[i]);
    if (!s.ok()) return AttrError(node, name, s);
  }
  *value = std::move(out);
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, std::string_view name,
                   const tensorflow::TensorProto** value) {
  const AttrValue* v;
  AF_RETURN_IF_ERROR(FindAttr(node, name, "tensor", &v));
  *value = &v->tensor();
  return Status::OK();
}

bool HasNodeAttr(const NodeDef& node, std::string_view name) {
  return node.attr().count(std::string(name)) > 0;
}

// ---- SetAttr ----

void SetAttr(NodeDef* node, const std::string& name, int64_t value) {
  Slot(node, name).set_i(value);
}
void SetAttr(NodeDef* node, const std::string& name, int value) {
  Slot(node, name).set_i(value);
}
void SetAttr(NodeDef* node, const std::string& name, float value) {
  Slot(node, name).set_f(value);
}
void SetAttr(NodeDef* node, const std::string& name, bool value) {
  Slot(node, name).set_b(value);
}
void SetAttr(NodeDef* node, const std::string& name, const std::string& value) {
  Slot(node, name).set_s(value);
}
void SetAttr(NodeDef* node, const std::string& name, const char* value) {
  Slot(node, name).set_s(value);
}
void SetAttr(NodeDef* node, const std::string& name, DataType value) {
  Slot(node, name).set_type(static_cast<tensorflow::DataType>(value));
}
void SetAttr(NodeDef* node, const std::string& name, const PartialTensorShape& value) {
  ShapeToProto(value, Slot(node, name).mutable_shape());
}
void SetAttr(NodeDef* node, const std::string& name, const Tensor& value) {
  // Typed fields read best for scalars; raw bytes are compact for the rest.
  auto* proto = Slot(node, name).mutable_tensor();
  if (value.NumElements() > 1) TensorToProtoContent(value, proto);
  else TensorToProtoField(value, proto);
}
void SetAttr(NodeDef* node, const std::string& name, const std::vector<int64_t>& value) {
  auto* list = Slot(node, name).mutable_list();
  for (int64_t v : value) list->add_i(v);
}
void SetAttr(NodeDef* node, const std::string& name, const std::vector<std::string>& value) {
  auto* list = Slot(node, name).mutable_list();
  for (const auto& v : value) list->add_s(v);
}
void SetAttr(NodeDef* node, const std::string& name, const std::vector<DataType>& value) {
  auto* list = Slot(node, name).mutable_list();
  for (DataType v : value) list->add_type(static_cast<tensorflow::DataType>(v));
}

// ---- Summaries ----

std::string SummarizeAttrValue(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return Quote(value.s());
    case AttrValue::kI: return std::to_string(value.i());
    case AttrValue::kF: return FloatString(value.f());
    case AttrValue::kB: return value.b() ? "true" : "false";
    case AttrValue::kType: return DataTypeString(static_cast<DataType>(value.type()));
    case AttrValue::kShape: return ShapeString(value.shape());
    case AttrValue::kTensor: return TensorString(value.tensor());
    case AttrValue::kFunc: return FuncString(value.func());
    case AttrValue::kPlaceholder: return std::string(1, '$').append(value.placeholder());
    case AttrValue::kList: {
      const auto& l = value.list();
      std::vector<std::string> items;
      for (const auto& s : l.s()) items.push_back(Quote(s));
      for (int64_t i : l.i()) items.push_back(std::to_string(i));
      for (float f : l.f()) items.push_back(FloatString(f));
      for (bool b : l.b()) items.push_back(b ? "true" : "false");
      for (int t : l.type()) items.push_back(DataTypeString(static_cast<DataType>(t)));
      for (const auto& s : l.shape()) items.push_back(ShapeString(s));
      for (const auto& t : l.tensor()) items.push_back(TensorString(t));
      for (const auto& f : l.func()) items.push_back(FuncString(f));
      // Long lists would drown the message they appear in.
      constexpr size_t kMaxShown = 30;
      std::string out = "[";
      for (size_t i = 0; i < items.size() && i < kMaxShown; ++i)
        out += (i ? ", " : "") + items[i];
      if (items.size() > kMaxShown)
        out += ", ... (" + std::to_string(items.size()) + " elements)";
      return out + "]";
    }
    case AttrValue::VALUE_NOT_SET: break;
  }
  return "<Unknown AttrValue type>";
}

std::string SummarizeNodeDef(const NodeDef& node) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : node.attr()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  std::string out = "{{node " + node.name() + "}} = " + node.op() + "[";
  bool first = true;
  for (const auto& k : keys) {
    out += (first ? "" : ", ") + k + "=" + SummarizeAttrValue(node.attr().at(k));
    first = false;
  }
  if (!node.device().empty())
    out += (first ? "" : ", ") + std::string("_device=\"") + node.device() + "\"";
  out += "](";
  for (int i = 0; i < node.input_size(); ++i) out += (i ? ", " : "") + node.input(i);
  return out + ")";
}

// ---- Tensor names ----

std::string TensorId::ToString() const {
  if (is_control()) return "^" + node;
  return node + ":" + std::to_string(index);
}

Status ParseTensorName(std::string_view name, TensorId* out) {
  auto bad = [&](std::string_view why) {
    return errors::InvalidArgument("malformed tensor name '", name, "': ", why);
  };
  std::string_view rest = name;
  const bool control = rest.starts_with('^');
  if (control) rest.remove_prefix(1);
  int index = 0;
  const size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos) {
    if (control) return bad("a control input names no output port");
    const std::string_view port = rest.substr(colon + 1);
    if (port.empty()) return bad("empty output port");
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), index);
    if (ec != std::errc() || ptr != port.data() + port.size() || port[0] == '-' ||
        port[0] == '+')
      return bad("output port is not a non-negative integer");
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return bad("empty node name");
  if (rest.find_first_of(":^") != std::string_view::npos)
    return bad("node names contain no ':' or '^'");
  out->node = std::string(rest);
  out->index = control ? -1 : index;
  return Status::OK();
}

}  // namespace af
