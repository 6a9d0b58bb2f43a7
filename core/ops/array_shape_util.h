// Helpers for the array ops' shape functions: constant int inputs (shape,
// axis, begin/size, paddings ... vectors that a Const feeds) and axis
// canonicalization with errors that name the node.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/shape_inference.h"
#include "core/status.h"
#include "core/tensor_shape.h"

namespace af::array_shape {

// The values of input `input` flattened, if it is a known constant of an
// integer type; *known = false (and no error) when its value is unknown.
Status ConstantInts(const InferenceContext* c, int input, bool* known,
                    std::vector<int64_t>* values);

// A known constant input holding exactly one integer (a scalar or a
// one-element vector); *known = false when its value is unknown.
Status ConstantInt(const InferenceContext* c, int input, std::string_view what, bool* known,
                   int64_t* value);

// axis in [-rank, rank) mapped to [0, rank); INVALID_ARGUMENT otherwise,
// "<what> <axis> is out of range for a tensor of rank <rank> ([-rank, rank))".
Status CanonicalAxis(const InferenceContext* c, int64_t axis, int rank, std::string_view what,
                     int* out);

// The dims of a partial shape of known rank.
std::vector<int64_t> Dims(const PartialTensorShape& shape);

}  // namespace af::array_shape
