#include "core/attr_value_util.h"

#include <algorithm>
#include <cctype>

#include "core/node_def_util.h"

namespace af {
namespace {

using tensorflow::AttrValue;

DataTypeVector Sorted(DataTypeVector v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool Contains(const DataTypeVector& v, DataType dt) {
  return std::find(v.begin(), v.end(), dt) != v.end();
}

// A shape attr value must describe a shape: dims >= -1, and no dims when the
// rank is unknown.
Status ValidateShapeProto(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank() && shape.dim_size() > 0)
    return errors::InvalidArgument("shape has unknown_rank set and ", shape.dim_size(),
                                   " dims");
  for (const auto& d : shape.dim())
    if (d.size() < -1) return errors::InvalidArgument("shape has dim of size ", d.size());
  return Status::OK();
}

Status ValidateDataType(int value) {
  if (value == DT_INVALID || !IsValidDataType(value) ||
      IsRefType(static_cast<DataType>(value)))
    return errors::InvalidArgument("'", DataTypeString(static_cast<DataType>(value)),
                                   "' is not a valid type here");
  return Status::OK();
}

// Number of elements in the list field a value of attr type `elem` uses.
int ListFieldSize(const AttrValue::ListValue& l, std::string_view elem) {
  if (elem == "string") return l.s_size();
  if (elem == "int") return l.i_size();
  if (elem == "float") return l.f_size();
  if (elem == "bool") return l.b_size();
  if (elem == "type") return l.type_size();
  if (elem == "shape") return l.shape_size();
  if (elem == "tensor") return l.tensor_size();
  if (elem == "func") return l.func_size();
  return -1;
}

int TotalListSize(const AttrValue::ListValue& l) {
  return l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() +
         l.shape_size() + l.tensor_size() + l.func_size();
}

bool IsKnownScalarType(std::string_view t) {
  return t == "string" || t == "int" || t == "float" || t == "bool" || t == "type" ||
         t == "shape" || t == "tensor" || t == "func";
}

}  // namespace

const DataTypeVector& NumberTypes() {
  static const DataTypeVector* v = new DataTypeVector(Sorted(
      {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_INT32, DT_UINT8, DT_UINT16, DT_INT16, DT_INT8,
       DT_COMPLEX64, DT_COMPLEX128, DT_QINT8, DT_QUINT8, DT_QINT32, DT_HALF, DT_UINT32,
       DT_UINT64, DT_BFLOAT16}));
  return *v;
}

const DataTypeVector& RealNumberTypes() {
  static const DataTypeVector* v = new DataTypeVector(Sorted(
      {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8, DT_INT16, DT_INT8, DT_UINT16,
       DT_HALF, DT_UINT32, DT_UINT64, DT_BFLOAT16}));
  return *v;
}

const DataTypeVector& QuantizedTypes() {
  static const DataTypeVector* v = new DataTypeVector(
      Sorted({DT_QINT8, DT_QUINT8, DT_QINT16, DT_QUINT16, DT_QINT32}));
  return *v;
}

const DataTypeVector& AllTypes() {
  static const DataTypeVector* v = [] {
    auto* all = new DataTypeVector;
    for (int i = 1; i < kDataTypeRefOffset; ++i)
      if (IsValidDataType(i)) all->push_back(static_cast<DataType>(i));
    return all;
  }();
  return *v;
}

const DataTypeVector* TypeSetByName(std::string_view name) {
  if (name == "numbertype" || name == "numerictype") return &NumberTypes();
  if (name == "realnumbertype" || name == "realnumerictype") return &RealNumberTypes();
  if (name == "quantizedtype") return &QuantizedTypes();
  if (name == "all") return &AllTypes();
  return nullptr;
}

std::string AttrValueTypeName(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kFunc: return "func";
    case AttrValue::kPlaceholder: return "placeholder";
    case AttrValue::kList: {
      const auto& l = value.list();
      for (std::string_view elem :
           {"string", "int", "float", "bool", "type", "shape", "tensor", "func"})
        if (ListFieldSize(l, elem) > 0) return "list(" + std::string(elem) + ")";
      return "list";
    }
    case AttrValue::VALUE_NOT_SET: break;
  }
  return "";
}

Status AttrValueHasType(const AttrValue& value, std::string_view type) {
  const std::string actual = AttrValueTypeName(value);
  if (type.starts_with("list(") && type.ends_with(")")) {
    const std::string_view elem = type.substr(5, type.size() - 6);
    if (!IsKnownScalarType(elem))
      return errors::InvalidArgument("unknown attr type '", type, "'");
    if (value.value_case() != AttrValue::kList)
      return errors::InvalidArgument("value has type '", actual.empty() ? "<none>" : actual,
                                     "', expected '", type, "'");
    const auto& l = value.list();
    if (ListFieldSize(l, elem) != TotalListSize(l))
      return errors::InvalidArgument("value has type '", actual, "', expected '", type, "'");
    return Status::OK();
  }
  if (!IsKnownScalarType(type)) return errors::InvalidArgument("unknown attr type '", type, "'");
  if (actual != type)
    return errors::InvalidArgument("value has type '", actual.empty() ? "<none>" : actual,
                                   "', expected '", type, "'");
  return Status::OK();
}

Status ValidateAttrValue(const AttrValue& value, const tensorflow::OpDef::AttrDef& attr) {
  const std::string where = "attr '" + attr.name() + "'";
  Status s = AttrValueHasType(value, attr.type());
  if (!s.ok()) return s.WithContext(where);

  // Values must be well formed whatever the allowed list says.
  if (value.value_case() == AttrValue::kType) {
    AF_RETURN_IF_ERROR(ValidateDataType(value.type()).WithContext(where));
  } else if (value.value_case() == AttrValue::kShape) {
    AF_RETURN_IF_ERROR(ValidateShapeProto(value.shape()).WithContext(where));
  } else if (value.value_case() == AttrValue::kList) {
    for (int t : value.list().type()) AF_RETURN_IF_ERROR(ValidateDataType(t).WithContext(where));
    for (const auto& sh : value.list().shape())
      AF_RETURN_IF_ERROR(ValidateShapeProto(sh).WithContext(where));
  }

  if (attr.has_minimum()) {
    if (attr.type() == "int") {
      if (value.i() < attr.minimum())
        return errors::InvalidArgument(where, " value ", value.i(),
                                       " is less than the minimum ", attr.minimum());
    } else if (value.value_case() == AttrValue::kList) {
      const int64_t n = TotalListSize(value.list());
      if (n < attr.minimum())
        return errors::InvalidArgument(where, " has ", n, " elements, fewer than the minimum ",
                                       attr.minimum());
    }
  }

  if (attr.has_allowed_values()) {
    const auto& allowed = attr.allowed_values().list();
    if (attr.type() == "type" || attr.type() == "list(type)") {
      DataTypeVector ok;
      for (int t : allowed.type()) ok.push_back(static_cast<DataType>(t));
      auto check = [&](int t) -> Status {
        if (Contains(ok, static_cast<DataType>(t))) return Status::OK();
        std::string names;
        for (DataType dt : ok) names += (names.empty() ? "" : ", ") + DataTypeString(dt);
        return errors::InvalidArgument(where, " value ", DataTypeString(static_cast<DataType>(t)),
                                       " is not in the allowed list {", names, "}");
      };
      if (value.value_case() == AttrValue::kType) AF_RETURN_IF_ERROR(check(value.type()));
      else
        for (int t : value.list().type()) AF_RETURN_IF_ERROR(check(t));
    } else if (attr.type() == "string" || attr.type() == "list(string)") {
      auto check = [&](const std::string& v) -> Status {
        if (std::find(allowed.s().begin(), allowed.s().end(), v) != allowed.s().end())
          return Status::OK();
        std::string names;
        for (const auto& a : allowed.s()) names += (names.empty() ? "\"" : ", \"") + a + "\"";
        return errors::InvalidArgument(where, " value \"", v, "\" is not in the allowed list {",
                                       names, "}");
      };
      if (value.value_case() == AttrValue::kS) AF_RETURN_IF_ERROR(check(value.s()));
      else
        for (const auto& v : value.list().s()) AF_RETURN_IF_ERROR(check(v));
    }
  }
  return Status::OK();
}

std::string NodeContext(const tensorflow::NodeDef& node) {
  return "node '" + node.name() + "' (op '" + node.op() + "')";
}

Status NodeStatus(const tensorflow::NodeDef& node, const Status& cause) {
  // Kernels pass every status through here, OK ones included: naming the
  // node costs a string, so only errors pay it.
  if (cause.ok()) return cause;
  return cause.WithContext(NodeContext(node));
}

std::string DataTypeEnumName(DataType dt) {
  std::string name = DataTypeString(dt);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "DT_" + name;
}

}  // namespace af
