#include "client/gradients/grad_helpers.h"

#include <complex>

#include "core/tensor_proto.h"

namespace af::grad {

std::vector<int64_t> Dims(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return {};
  return std::vector<int64_t>(shape.dim_sizes().begin(), shape.dim_sizes().end());
}

void CopyAttrs(const Operation& op, std::initializer_list<const char*> names, AttrList* attrs) {
  const auto& attr = op.node()->def().attr();
  for (const char* name : names) {
    auto it = attr.find(name);
    if (it != attr.end()) attrs->Set(name, it->second);
  }
}

Output ScalarOfType(const Scope& scope, DataType type, double value) {
  // A ref input (a variable read directly) has the ref type; the constant
  // is of its value type.
  const DataType dtype = BaseType(type);
  Tensor t(dtype, TensorShape{});
  const bool known = VisitDataType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, half>) {
      t.scalar<T>() = FloatToHalf(static_cast<float>(value));
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      t.scalar<T>() = FloatToBFloat16(static_cast<float>(value));
    } else if constexpr (std::is_arithmetic_v<T>) {
      t.scalar<T>() = static_cast<T>(value);
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      t.scalar<T>() = T(static_cast<typename T::value_type>(value));
    }
  });
  if (!known || !(DataTypeIsNumeric(dtype))) {
    scope.UpdateStatus(errors::InvalidArgument("gradient: no scalar constant of type ",
                                               DataTypeString(dtype)));
    return Output();
  }
  return ops::Const(scope, Input::Initializer(t));
}

Output IndexVector(const Scope& scope, DataType dtype, const std::vector<int64_t>& values) {
  if (dtype == DT_INT64) return ops::Const(scope, Input::Initializer(Tensor::FromVector(values)));
  std::vector<int32_t> narrow(values.begin(), values.end());
  return ops::Const(scope, Input::Initializer(Tensor::FromVector(narrow)));
}

bool ConstantInts(const Output& o, std::vector<int64_t>* values) {
  if (!o.valid() || !o.node()->IsConstant()) return false;
  Tensor t;
  if (!GetNodeAttr(o.node()->def(), "value", &t).ok()) return false;
  values->clear();
  if (t.dtype() == DT_INT32) {
    for (int64_t i = 0; i < t.NumElements(); ++i) values->push_back(t.data<int32_t>()[i]);
  } else if (t.dtype() == DT_INT64) {
    for (int64_t i = 0; i < t.NumElements(); ++i) values->push_back(t.data<int64_t>()[i]);
  } else {
    return false;
  }
  return true;
}

Output ShapeOf(const Scope& scope, const Output& x, DataType out_type) {
  const PartialTensorShape shape = x.shape();
  if (shape.IsFullyDefined()) return IndexVector(scope, out_type, Dims(shape));
  return ops::Shape(scope.ColocateWith(x), x, ops::Shape::OutType(out_type));
}

Output SumToShapeOf(const Scope& scope, const Output& grad, const Output& x) {
  const PartialTensorShape gs = grad.shape(), xs = x.shape();
  if (gs.IsFullyDefined() && xs.IsFullyDefined() && xs.dims() <= gs.dims()) {
    if (gs == xs) return grad;
    const int lead = gs.dims() - xs.dims();
    std::vector<int64_t> axes;
    for (int d = 0; d < gs.dims(); ++d) {
      if (d < lead || (xs.dim_size(d - lead) == 1 && gs.dim_size(d) != 1)) axes.push_back(d);
    }
    Output summed = grad;
    if (!axes.empty()) summed = ops::Sum(scope, grad, IndexVector(scope, DT_INT32, axes));
    return ops::Reshape(scope, summed, IndexVector(scope, DT_INT32, Dims(xs)));
  }
  auto sx = ShapeOf(scope, x);
  auto sg = ops::Shape(scope, grad);
  auto r = ops::BroadcastGradientArgs(scope, sx, sg);
  return ops::Reshape(scope, ops::Sum(scope, grad, r.r0), sx);
}

Status BinaryGradCommon(const Scope& scope, const Operation& op, const Output& gx,
                        const Output& gy, std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(SumToShapeOf(scope, gx, op.input(0)));
  grad_outputs->push_back(SumToShapeOf(scope, gy, op.input(1)));
  return scope.status();
}

Output ReducedShapeKeepDims(const Scope& scope, const Output& input, const Output& axes) {
  const PartialTensorShape shape = input.shape();
  std::vector<int64_t> axis_values;
  const bool const_axes = ConstantInts(axes, &axis_values);
  if (!shape.unknown_rank() && const_axes) {
    const int rank = shape.dims();
    std::vector<int64_t> reduced(rank, 0);
    for (int64_t a : axis_values) {
      const int64_t d = a < 0 ? a + rank : a;
      if (d >= 0 && d < rank) reduced[d] = 1;
    }
    if (shape.IsFullyDefined()) {
      std::vector<int64_t> kept(rank);
      for (int d = 0; d < rank; ++d) kept[d] = reduced[d] ? 1 : shape.dim_size(d);
      return IndexVector(scope, DT_INT32, kept);
    }
    std::vector<int64_t> keep(rank);
    for (int d = 0; d < rank; ++d) keep[d] = 1 - reduced[d];
    // shape * keep + reduced: reduced dims become 1, the others stay.
    auto kept = ops::Mul(scope, ops::Shape(scope, input), IndexVector(scope, DT_INT32, keep));
    return ops::Add(scope, kept, IndexVector(scope, DT_INT32, reduced));
  }
  // Rank or axes known only at run time: a 0/1 mask of reduced dims from a
  // one-hot encoding of the (wrapped) axes.
  auto rank = ops::Rank(scope, input);
  auto flat_axes =
      ops::Reshape(scope, ops::Cast(scope, axes, DT_INT32), IndexVector(scope, DT_INT32, {-1}));
  auto wrapped = ops::FloorMod(scope, flat_axes, rank);
  auto one_hot = ops::OneHot(scope, wrapped, rank, 1.0f, 0.0f);
  auto mask = ops::Cast(scope, ops::Minimum(scope, ops::Sum(scope, one_hot, 0), 1.0f), DT_INT32);
  auto input_shape = ops::Shape(scope, input);
  return ops::Sub(scope, input_shape, ops::Mul(scope, ops::Sub(scope, input_shape, 1), mask));
}

Output BroadcastReductionGrad(const Scope& scope, const Output& grad, const Output& input,
                              const Output& axes) {
  auto kept = ReducedShapeKeepDims(scope, input, axes);
  auto reshaped = ops::Reshape(scope, grad, kept);
  if (input.shape().IsFullyDefined()) {
    return ops::BroadcastTo(scope, reshaped, IndexVector(scope, DT_INT32, Dims(input.shape())));
  }
  return ops::BroadcastTo(scope, reshaped, ops::Shape(scope, input));
}

bool IsZerosLike(const Output& o) {
  return o.valid() && o.node()->type_string() == "ZerosLike";
}

}  // namespace af::grad
