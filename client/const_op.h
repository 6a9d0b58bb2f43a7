// Hand-written wrappers whose TensorFlow signatures the generator cannot
// derive from the OpDef: Const takes a value rather than attrs, and
// Placeholder takes its shape positionally.
//
//   auto c = ops::Const(scope, {{1.f, 2.f}, {3.f, 4.f}});   // 2x2 float
//   auto z = ops::Const(scope, 0.0, {3, 4});                 // 3x4 zeros
//   auto x = ops::Placeholder(scope, DT_FLOAT, {-1, 784});
#pragma once

#include <initializer_list>

#include "client/attr_list.h"
#include "client/ops.h"
#include "client/scope.h"

namespace af::ops {

Output Const(const Scope& scope, const Input::Initializer& value);

// `value` repeated to fill `shape`.
template <InitializerScalar T>
Output Const(const Scope& scope, const T& value, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = value;
  return Const(scope, Input::Initializer(t));
}

// `values` laid out in `shape` (counts must match).
template <InitializerScalar T>
Output Const(const Scope& scope, std::initializer_list<T> values, const TensorShape& shape) {
  return Const(scope, Input::Initializer(values, shape));
}

class Placeholder {
 public:
  struct Attrs {
    Attrs Shape(const PartialTensorShape& shape) const {
      Attrs r = *this;
      r.list.SetShape("shape", shape);
      return r;
    }
    AttrList list;
  };
  Placeholder(const Scope& scope, DataType dtype);
  Placeholder(const Scope& scope, DataType dtype, const Attrs& attrs);
  Placeholder(const Scope& scope, DataType dtype, const PartialTensorShape& shape);
  static Attrs Shape(const PartialTensorShape& shape) { return Attrs().Shape(shape); }

  operator Output() const { return output; }  // NOLINT
  operator Input() const { return output; }   // NOLINT
  Node* node() const { return operation.node(); }

  Operation operation;
  Output output;
};

}  // namespace af::ops
