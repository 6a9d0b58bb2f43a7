// AttrList: attr values an op wrapper's optional setters collect
// (`ops::MatMul::TransposeB(true)`) before the node is built. The typed
// setters keep the generated wrappers free of proto code; values the
// caller leaves out take the OpDef's defaults when the node is added.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "proto/attr_value.pb.h"

namespace af {

class AttrList {
 public:
  void SetInt(std::string_view name, int64_t v);
  void SetFloat(std::string_view name, float v);
  void SetBool(std::string_view name, bool v);
  void SetString(std::string_view name, std::string_view v);
  void SetType(std::string_view name, DataType v);
  void SetShape(std::string_view name, const PartialTensorShape& v);
  void SetTensor(std::string_view name, const Tensor& v);
  void SetFunc(std::string_view name, std::string_view function_name);
  void SetIntList(std::string_view name, const std::vector<int64_t>& v);
  void SetFloatList(std::string_view name, const std::vector<float>& v);
  void SetBoolList(std::string_view name, const std::vector<bool>& v);
  void SetStringList(std::string_view name, const std::vector<std::string>& v);
  void SetTypeList(std::string_view name, const DataTypeVector& v);
  void SetShapeList(std::string_view name, const std::vector<PartialTensorShape>& v);
  void SetTensorList(std::string_view name, const std::vector<Tensor>& v);
  void SetFuncList(std::string_view name, const std::vector<std::string>& function_names);
  void Set(std::string_view name, tensorflow::AttrValue value);

  // In the order set; a later value for a name replaces the earlier one.
  const std::vector<std::pair<std::string, tensorflow::AttrValue>>& values() const {
    return values_;
  }

 private:
  tensorflow::AttrValue* Slot(std::string_view name);
  std::vector<std::pair<std::string, tensorflow::AttrValue>> values_;
};

}  // namespace af
