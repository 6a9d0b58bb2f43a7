#include "client/const_op.h"

#include "client/op_builder.h"

namespace af::ops {

Output Const(const Scope& scope, const Input::Initializer& value) {
  if (!scope.ok()) return Output();
  if (!value.status.ok()) {
    scope.UpdateStatus(value.status.WithContext("Const"));
    return Output();
  }
  OpBuilder b(scope, "Const");
  b.attrs().SetTensor("value", value.tensor);
  b.attrs().SetType("dtype", value.tensor.dtype());
  return Output(b.Finish(), 0);
}

Placeholder::Placeholder(const Scope& scope, DataType dtype) : Placeholder(scope, dtype, Attrs()) {}

Placeholder::Placeholder(const Scope& scope, DataType dtype, const PartialTensorShape& shape)
    : Placeholder(scope, dtype, Attrs().Shape(shape)) {}

Placeholder::Placeholder(const Scope& scope, DataType dtype, const Attrs& attrs) {
  OpBuilder b(scope, "Placeholder");
  b.SetAttrs(attrs.list);
  b.attrs().SetType("dtype", dtype);
  operation = b.Finish();
  output = b.OutputForArg("output");
}

}  // namespace af::ops
