// Helpers for kernels that read and update variables through reference
// inputs (TensorValue::ref / ref_mu).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <utility>

#include "core/op_kernel.h"

namespace af::state {

// The name the node gave input i (the variable, for a ref input straight
// from a VariableV2).
inline std::string RequestedInput(const OpKernel& kernel, int i) {
  const auto& inputs = kernel.def().input();
  if (i >= inputs.size()) return "input " + std::to_string(i);
  return inputs[i];
}

// FAILED_PRECONDITION naming the variable, as TensorFlow words it.
// Only this tensor refers to the buffer, and to all of it (so an update
// may write into it, or a variable may adopt it).
inline bool OwnsWholeBuffer(const Tensor& t) {
  const BufferRef& buf = t.buffer();
  return buf && buf->RefCountIsOne() && buf->root() == buf.get();
}

inline Status UninitializedError(const OpKernelContext& ctx, int i) {
  return ctx.NodeError(errors::FailedPrecondition("Attempting to use uninitialized value ",
                                                  RequestedInput(ctx.op_kernel(), i)));
}

// The storage behind ref input i, or INVALID_ARGUMENT if the input is not a
// reference (a graph wiring a plain tensor where a variable belongs).
inline Status RefInput(OpKernelContext* ctx, int i, Tensor** out) {
  if (!ctx->input_is_ref(i))
    return ctx->NodeError(errors::InvalidArgument(
        "input ", i, " (", RequestedInput(ctx->op_kernel(), i),
        ") must be a reference to a variable"));
  *out = ctx->mutable_input(i);
  return Status::OK();
}

// Ref input i, which must hold a value.
inline Status InitializedRefInput(OpKernelContext* ctx, int i, Tensor** out) {
  AF_RETURN_IF_ERROR(RefInput(ctx, i, out));
  if (!(*out)->IsInitialized()) return UninitializedError(*ctx, i);
  return Status::OK();
}

inline void ForwardRefInputToRefOutput(OpKernelContext* ctx, int in, int out) {
  ctx->set_output_ref(out, ctx->input_ref_mutex(in), ctx->mutable_input(in));
}

// Holds the mutexes of some ref inputs, each once, taken in address order
// so that two kernels locking overlapping variables cannot deadlock.
class RefInputLocks {
 public:
  RefInputLocks(OpKernelContext* ctx, std::initializer_list<int> inputs, bool lock) {
    if (!lock) return;
    for (int i : inputs) {
      std::mutex* mu = ctx->input_ref_mutex(i);
      if (mu == nullptr || n_ == kMaxLocks) continue;
      bool seen = false;
      for (int k = 0; k < n_; ++k) seen = seen || mus_[k] == mu;
      if (!seen) mus_[n_++] = mu;
    }
    // Insertion sort of at most kMaxLocks pointers.
    for (int i = 1; i < n_; ++i)
      for (int j = i; j > 0 && std::less<std::mutex*>()(mus_[j], mus_[j - 1]); --j)
        std::swap(mus_[j], mus_[j - 1]);
    for (int i = 0; i < n_; ++i) mus_[i]->lock();
  }
  ~RefInputLocks() {
    for (int i = n_ - 1; i >= 0; --i) mus_[i]->unlock();
  }
  RefInputLocks(const RefInputLocks&) = delete;
  RefInputLocks& operator=(const RefInputLocks&) = delete;

 private:
  static constexpr int kMaxLocks = 4;  // the most ref inputs an op here has is 3
  std::array<std::mutex*, kMaxLocks> mus_{};
  int n_ = 0;
};

// Runs fn(begin, end) over [0, n), split across the device's intra-op pool
// when the work is large enough to pay for it.
// Small updates call `fn` directly: no std::function, no allocation.
template <typename Fn>
void ParallelUpdate(OpKernelContext* ctx, int64_t n, int64_t cycles_per_element, const Fn& fn) {
  ThreadPoolInterface* pool = ctx->device() ? ctx->device()->intra_op_pool() : nullptr;
  if (pool == nullptr || n < 32768) {
    fn(0, n);
    return;
  }
  pool->ParallelFor(n, cycles_per_element, std::cref(fn));
}

}  // namespace af::state
