// Buffer forwarding (TensorFlow's forward_input_or_allocate_output): an
// element-wise kernel writes its output into an input's buffer when nothing
// but the node's own input slot holds that buffer. The executor moves a
// value into its last consumer's slot, so a chain such as
// RandomUniform -> Mul -> Add fills one buffer instead of three, and a
// training step's activations and gradients reuse what they consume.
#pragma once

#include <initializer_list>

#include "core/op_kernel.h"

namespace af {

// Output `out` of `shape` placed in the buffer of the first input in
// `candidates` that qualifies, else allocated as allocate_output does. An
// input qualifies when it is a value (not a ref), has the output's dtype
// and element count, and is not a string, a slice of another buffer, memory
// from another allocator, or a buffer anyone else references (another
// consumer's slot, a fetch, a variable, a client's feed, a constant). The
// kernel must compute each output element from input elements at the same
// index only: it overwrites what it reads. `forwarded` (optional) gets the
// input's index, or -1. ACTORFLOW_FORWARD_INPUTS=0 turns forwarding off
// for the whole process (A/B measurements).
Status ForwardInputOrAllocateOutput(OpKernelContext* ctx, std::initializer_list<int> candidates,
                                    int out, const TensorShape& shape, Tensor** result,
                                    int* forwarded = nullptr);

// Whether ACTORFLOW_FORWARD_INPUTS left forwarding on (read once).
bool InputForwardingEnabled();

}  // namespace af
