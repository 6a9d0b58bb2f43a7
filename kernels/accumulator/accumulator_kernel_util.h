// What the accumulator kernels share: finding the accumulator a handle
// input names, checking that it is the kind and dtype the op expects, and
// TensorFlow's scalar-argument checks.
#pragma once

#include "core/accumulator_interface.h"
#include "core/op_kernel.h"
#include "core/resource_mgr.h"

namespace af::accumulator_kernels {

// The dtypes the kernels are registered for (TensorFlow's CPU set).
const DataTypeVector& KernelTypes();

// The accumulator named by input `input`: a resource handle (Resource* ops)
// or a [container, name] string vector, possibly behind a ref edge (TF1
// ops). Errors name the node.
Status LookupAccumulator(OpKernelContext* ctx, int input,
                         ResourceRef<AccumulatorInterface>* out);

// INVALID_ARGUMENT (naming the node) unless the accumulator is of `kind`
// and accumulates `dtype`, as the op's attrs say.
Status CheckAccumulator(OpKernelContext* ctx, const AccumulatorInterface& accumulator,
                        AccumulatorSpec::Kind kind, DataType dtype);

// INVALID_ARGUMENT (naming the node) unless input `input` is a scalar:
// "Argument <what> must be scalar, but had bad shape [..]".
Status CheckScalarInput(OpKernelContext* ctx, int input, const char* what);

}  // namespace af::accumulator_kernels
