// Assign on any device: the shape check under validate_shape and the choice
// of how ref = value happens, with TensorFlow's error. The caller holds the
// variable's lock and does the copy its device needs.
#pragma once

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/state/ref_inputs.h"

namespace af::state {

enum class AssignHow {
  kCopyInPlace,   // an initialized variable of the value's shape that only it holds
  kAdopt,         // nobody else can see the value's buffer: take it, no copy
  kCopyToFresh,   // copy the value into a fresh buffer of its shape
};

// An uninitialized variable takes the value (with its shape when
// validate_shape is false). The variable never writes into a buffer that
// someone else still holds (an earlier read, a fetched result).
inline Status PlanAssign(const Tensor& lhs, const Tensor& rhs, bool validate_shape,
                         AssignHow* how) {
  const bool same_shape = lhs.shape() == rhs.shape();
  if (validate_shape && lhs.IsInitialized() && !same_shape) {
    return errors::InvalidArgument("Assign requires shapes of both tensors to match. lhs shape= ",
                                   lhs.shape().DebugString(),
                                   " rhs shape= ", rhs.shape().DebugString());
  }
  if (lhs.IsInitialized() && same_shape && OwnsWholeBuffer(lhs)) {
    *how = AssignHow::kCopyInPlace;
  } else if (OwnsWholeBuffer(rhs)) {
    *how = AssignHow::kAdopt;
  } else {
    *how = AssignHow::kCopyToFresh;
  }
  return Status::OK();
}

}  // namespace af::state
