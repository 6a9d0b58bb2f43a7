// Op definitions: an OpDef (TensorFlow's proto) plus a shape function,
// registered once per process by linking the file that declares it:
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
//       .Attr("T: {half, bfloat16, float, double, int32, int64}")
//       .SetShapeFn(shape_fn::MatMul);
//
// Spec grammar (as TensorFlow's):
//   Input/Output: "name: T" (type attr), "name: float" (fixed type),
//                 "name: N * T" (N tensors of type T), "name: Tlist"
//                 (list(type) attr), "name: Ref(T)" (reference input).
//   Attr: "name: type" with type one of int, float, bool, string, type,
//         shape, tensor, func, list(<type>); optional "= default";
//         "T: {float, int32}" or "padding: {'SAME', 'VALID'}" restricts
//         values; "N: int >= 1" sets a minimum. The type-set shorthands
//         numbertype, realnumbertype, quantizedtype, and all are known.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "proto/op_def.pb.h"

namespace af {

class InferenceContext;
using ShapeFn = std::function<Status(InferenceContext*)>;

struct OpRegistrationData {
  tensorflow::OpDef op_def;
  ShapeFn shape_fn;  // may be empty: outputs get unknown shapes
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Doc(std::string summary);

  // Parses all specs; INVALID_ARGUMENT naming the op and the bad spec.
  Status Finalize(OpRegistrationData* out) const;

 private:
  std::string name_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  bool stateful_ = false, commutative_ = false, aggregate_ = false,
       allows_uninitialized_ = false;
  std::string summary_;
  ShapeFn shape_fn_;
};

class OpRegistry {
 public:
  static OpRegistry* Global();

  // ALREADY_EXISTS if an op of that name is registered.
  Status Register(const OpDefBuilder& builder);
  Status Register(OpRegistrationData data);

  // nullptr if no such op.
  const OpRegistrationData* LookUp(std::string_view op_name) const;
  // NOT_FOUND: "Op type not registered 'Foo'".
  Status LookUpOpDef(std::string_view op_name, const tensorflow::OpDef** out) const;
  std::vector<std::string> ListOps() const;

 private:
  mutable std::mutex mu_;  // guards ops_
  std::map<std::string, std::unique_ptr<OpRegistrationData>, std::less<>> ops_;
};

namespace register_op {
// Registers at static-initialization time; a bad spec aborts the process at
// start-up with the error, since it is a bug in the binary, not user input.
struct OpDefBuilderReceiver {
  OpDefBuilderReceiver(const OpDefBuilder& builder);  // NOLINT
};
}  // namespace register_op

}  // namespace af

#define AF_REGISTER_OP_CONCAT_INNER(a, b) a##b
#define AF_REGISTER_OP_CONCAT(a, b) AF_REGISTER_OP_CONCAT_INNER(a, b)
#define REGISTER_OP(name)                                                    \
  static ::af::register_op::OpDefBuilderReceiver AF_REGISTER_OP_CONCAT(      \
      af_register_op_, __COUNTER__) [[maybe_unused]] = ::af::OpDefBuilder(name)
