#include "client/attr_list.h"

#include "core/tensor_proto.h"
#include "core/tensor_shape_proto.h"

namespace af {

tensorflow::AttrValue* AttrList::Slot(std::string_view name) {
  for (auto& [n, v] : values_) {
    if (n == name) {
      v.Clear();
      return &v;
    }
  }
  values_.emplace_back(std::string(name), tensorflow::AttrValue());
  return &values_.back().second;
}

void AttrList::Set(std::string_view name, tensorflow::AttrValue value) {
  *Slot(name) = std::move(value);
}

void AttrList::SetInt(std::string_view name, int64_t v) { Slot(name)->set_i(v); }
void AttrList::SetFloat(std::string_view name, float v) { Slot(name)->set_f(v); }
void AttrList::SetBool(std::string_view name, bool v) { Slot(name)->set_b(v); }
void AttrList::SetString(std::string_view name, std::string_view v) {
  Slot(name)->set_s(std::string(v));
}
void AttrList::SetType(std::string_view name, DataType v) {
  Slot(name)->set_type(static_cast<tensorflow::DataType>(v));
}
void AttrList::SetShape(std::string_view name, const PartialTensorShape& v) {
  ShapeToProto(v, Slot(name)->mutable_shape());
}
void AttrList::SetTensor(std::string_view name, const Tensor& v) {
  TensorToProtoContent(v, Slot(name)->mutable_tensor());
}
void AttrList::SetFunc(std::string_view name, std::string_view function_name) {
  Slot(name)->mutable_func()->set_name(std::string(function_name));
}
void AttrList::SetIntList(std::string_view name, const std::vector<int64_t>& v) {
  auto* list = Slot(name)->mutable_list();
  for (int64_t x : v) list->add_i(x);
}
void AttrList::SetFloatList(std::string_view name, const std::vector<float>& v) {
  auto* list = Slot(name)->mutable_list();
  for (float x : v) list->add_f(x);
}
void AttrList::SetBoolList(std::string_view name, const std::vector<bool>& v) {
  auto* list = Slot(name)->mutable_list();
  for (bool x : v) list->add_b(x);
}
void AttrList::SetStringList(std::string_view name, const std::vector<std::string>& v) {
  auto* list = Slot(name)->mutable_list();
  for (const std::string& x : v) list->add_s(x);
}
void AttrList::SetTypeList(std::string_view name, const DataTypeVector& v) {
  auto* list = Slot(name)->mutable_list();
  for (DataType x : v) list->add_type(static_cast<tensorflow::DataType>(x));
}
void AttrList::SetShapeList(std::string_view name, const std::vector<PartialTensorShape>& v) {
  auto* list = Slot(name)->mutable_list();
  for (const PartialTensorShape& x : v) ShapeToProto(x, list->add_shape());
}
void AttrList::SetTensorList(std::string_view name, const std::vector<Tensor>& v) {
  auto* list = Slot(name)->mutable_list();
  for (const Tensor& x : v) TensorToProtoContent(x, list->add_tensor());
}
void AttrList::SetFuncList(std::string_view name, const std::vector<std::string>& v) {
  auto* list = Slot(name)->mutable_list();
  for (const std::string& x : v) list->add_func()->set_name(x);
}

}  // namespace af
