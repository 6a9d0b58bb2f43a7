// Numerical gradient checking, like TensorFlow's ComputeGradientError:
// compares the Jacobian that AddSymbolicGradients computes with one from
// central differences, and reports the largest absolute difference.
//
// The xs must be Placeholders (they are fed); the ys are computed from
// them. The theoretical Jacobian takes one step per element of the ys
// (grad_ys one-hot), the numerical one two steps per element of the xs,
// so keep the tensors small. float and double tensors are supported; use
// double wherever a kernel exists (float differences are only good to
// about 1e-2).
#pragma once

#include <cstdint>
#include <vector>

#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

struct GradientCheckOptions {
  double delta = 1e-3;  // finite-difference step
  uint64_t seed = 1;    // random x values are uniform in [-1, 1)
};

// xs get random values of `x_shapes`.
Status ComputeGradientError(const Scope& scope, const OutputList& xs,
                            const std::vector<TensorShape>& x_shapes, const OutputList& ys,
                            const std::vector<TensorShape>& y_shapes, double* max_error,
                            const GradientCheckOptions& options = {});

// xs get the given values (for ops defined on part of the line, or to keep
// away from kinks).
Status ComputeGradientError(const Scope& scope, const OutputList& xs,
                            const std::vector<Tensor>& x_values, const OutputList& ys,
                            const std::vector<TensorShape>& y_shapes, double* max_error,
                            const GradientCheckOptions& options = {});

Status ComputeGradientError(const Scope& scope, const Output& x, const Tensor& x_value,
                            const Output& y, const TensorShape& y_shape, double* max_error,
                            const GradientCheckOptions& options = {});

// The two Jacobians, each [total x elements][total y elements], for tests
// that want to look at them.
Status ComputeJacobians(const Scope& scope, const OutputList& xs,
                        const std::vector<Tensor>& x_values, const OutputList& ys,
                        const std::vector<TensorShape>& y_shapes,
                        std::vector<std::vector<double>>* theoretical,
                        std::vector<std::vector<double>>* numerical,
                        const GradientCheckOptions& options = {});

}  // namespace af
