// Pieces the gradient functions share: reducing a broadcast gradient back
// to an input's shape, typed constants, reading attrs and constant inputs.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "client/attr_list.h"
#include "client/gradients.h"
#include "client/op_builder.h"
#include "client/standard_ops.h"
#include "core/node_def_util.h"

namespace af::grad {

template <typename T>
Status GetAttr(const Operation& op, std::string_view name, T* value) {
  return GetNodeAttr(op.node()->def(), name, value);
}

// Copies the named attrs the op has into `attrs` (for a gradient op that
// takes the forward op's strides, padding, data_format, ...).
void CopyAttrs(const Operation& op, std::initializer_list<const char*> names, AttrList* attrs);

// The dims of a shape of known rank (-1 for unknown dims).
std::vector<int64_t> Dims(const PartialTensorShape& shape);

// A scalar of `dtype` (floating, complex or integer) holding `value`.
Output ScalarOfType(const Scope& scope, DataType dtype, double value);
// A 1-D int32 or int64 constant.
Output IndexVector(const Scope& scope, DataType dtype, const std::vector<int64_t>& values);

// The values of `o` if it is produced by a Const of an integer type.
bool ConstantInts(const Output& o, std::vector<int64_t>* values);

// The shape of `x` as a 1-D `out_type` tensor: a constant when the graph
// knows it, else a Shape op placed with `x`. A gradient never pulls a
// tensor to another device only to read its shape (a gather's gradient
// would otherwise ship a ps task's whole table to the worker each step).
Output ShapeOf(const Scope& scope, const Output& x, DataType out_type = DT_INT32);

// `grad` (shaped like a broadcast result) summed over the broadcast dims
// and reshaped to the shape of `x`. Static when both shapes are known.
Output SumToShapeOf(const Scope& scope, const Output& grad, const Output& x);

// The gradients of a broadcasting binary op's two inputs, from the
// unreduced gradients gx and gy.
Status BinaryGradCommon(const Scope& scope, const Operation& op, const Output& gx,
                        const Output& gy, std::vector<Output>* grad_outputs);

// The shape `input_shape` has after reducing over `axes` with keep_dims
// (reduced dims become 1), as a graph value; static when possible.
Output ReducedShapeKeepDims(const Scope& scope, const Output& input, const Output& axes);

// The gradient of a reduction's output broadcast back to the input's shape.
Output BroadcastReductionGrad(const Scope& scope, const Output& grad, const Output& input,
                              const Output& axes);

// Whether `o` is known to be all zeros (a ZerosLike the gradient builder
// filled in for an output nothing used).
bool IsZerosLike(const Output& o);

}  // namespace af::grad
