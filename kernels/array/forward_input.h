// Passing an input through to an output without copying, for the identity
// family of kernels.
#pragma once

#include <mutex>

#include "core/op_kernel.h"

namespace af {

// Output `out` becomes input `in`, sharing its buffer. A reference input (a
// variable) is read under its mutex so a concurrent assignment cannot tear
// the handle; the output then shares the variable's current buffer.
inline void ForwardInput(OpKernelContext* ctx, int in, int out) {
  if (ctx->input_is_ref(in) && ctx->input_ref_mutex(in) != nullptr) {
    std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(in));
    ctx->set_output(out, *ctx->mutable_input(in));
    return;
  }
  ctx->set_output(out, ctx->input(in));
}

}  // namespace af
