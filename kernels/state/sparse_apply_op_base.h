// The checks every SparseApply* optimizer kernel makes before it updates,
// and how it walks the rows its indices name. All of the checks, the range
// of every index included, come before the first write, so a bad input
// leaves the variable and its slots as they were.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "core/op_kernel.h"
#include "kernels/state/apply_op_base.h"
#include "kernels/state/ref_inputs.h"

namespace af::state {

// The elements in one row (one index) of `t`: the product of dims 1..n-1.
inline int64_t RowElements(const Tensor& t) {
  int64_t n = 1;
  for (int d = 1; d < t.dims(); ++d) n *= t.dim_size(d);
  return n;
}

class SparseApplyOpBase : public ApplyOpBase {
 public:
  using ApplyOpBase::ApplyOpBase;

 protected:
  // Ref inputs initialized and shaped like the variable (at least 1-D),
  // the listed inputs scalars, indices a vector, grad one row per index
  // with the variable's row shape, every index in [0, var.dim(0)). On
  // success `refs` holds the ref inputs' storage in order.
  template <typename Index>
  Status CheckSparseInputs(OpKernelContext* ctx, std::initializer_list<int> ref_inputs,
                           std::initializer_list<int> scalar_inputs, int grad_input,
                           int indices_input, Tensor** refs) const {
    int k = 0;
    for (int i : ref_inputs) {
      AF_RETURN_IF_ERROR(InitializedRefInput(ctx, i, &refs[k]));
      if (k > 0 && refs[k]->shape() != refs[0]->shape())
        return ctx->NodeError(errors::InvalidArgument(
            "var and ", InputName(i), " do not have the same shape: ",
            refs[0]->shape().DebugString(), " vs ", refs[k]->shape().DebugString()));
      ++k;
    }
    const Tensor& var = *refs[0];
    if (var.dims() < 1)
      return ctx->NodeError(errors::InvalidArgument(
          "var must be at least 1 dimensional, got shape ", var.shape().DebugString()));
    for (int i : scalar_inputs) {
      if (ctx->input(i).dims() != 0)
        return ctx->NodeError(errors::InvalidArgument(
            InputName(i), " is not a scalar: ", ctx->input(i).shape().DebugString()));
    }
    const Tensor& indices = ctx->input(indices_input);
    if (indices.dims() != 1)
      return ctx->NodeError(errors::InvalidArgument(InputName(indices_input),
                                                    " must be one-dimensional, got shape ",
                                                    indices.shape().DebugString()));
    const Tensor& grad = ctx->input(grad_input);
    const int64_t n = indices.dim_size(0);
    if (grad.dims() < 1 || grad.dim_size(0) != n)
      return ctx->NodeError(errors::InvalidArgument(
          "grad must be the same size as indices in the first dimension: grad shape ",
          grad.shape().DebugString(), ", indices shape ", indices.shape().DebugString()));
    if (grad.dims() != var.dims())
      return ctx->NodeError(errors::InvalidArgument(
          "var and grad must have the same rank: var shape ", var.shape().DebugString(),
          ", grad shape ", grad.shape().DebugString()));
    for (int d = 1; d < var.dims(); ++d) {
      if (var.dim_size(d) != grad.dim_size(d))
        return ctx->NodeError(errors::InvalidArgument("var and grad must match in dimension ", d,
                                                      ": var shape ", var.shape().DebugString(),
                                                      ", grad shape ", grad.shape().DebugString()));
    }
    const int64_t rows = var.dim_size(0);
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || static_cast<int64_t>(idx[i]) >= rows)
        return ctx->NodeError(errors::InvalidArgument(
            InputName(indices_input), "[", i, "] = ", idx[i], " is not in [0, ", rows, ")"));
    }
    return Status::OK();
  }
};

// Prefetching a row ahead of its update: the first line alone leaves the
// rest of a short row to the hardware prefetcher, which starts too late to
// hide the misses. Up to kPrefetchRowBytes of each tensor's row are asked
// for; the cap keeps several rows of three tensors within the misses a core
// can have in flight (a wide row's later lines stream in behind the first).
inline constexpr int64_t kPrefetchRowBytes = 512;

// How many elements of a row of T PrefetchRowsForWrite should ask for.
// Compute it once, outside the closure that prefetches: where GCC 12 sees
// the count is capped it peels the loop below and then drops every
// prefetch in it (checked on the disassembly).
template <typename T>
int64_t PrefetchElements(int64_t row_elements) {
  return std::min<int64_t>(row_elements, kPrefetchRowBytes / static_cast<int64_t>(sizeof(T)));
}

// Asks for `elements` of the same row of a variable and its slots, ahead of
// a write, a line of each tensor in turn: when the core drops requests, it
// drops every tensor's last lines rather than one tensor's whole row.
template <typename T, typename... More>
void PrefetchRowsForWrite(int64_t elements, const T* row, const More*... more) {
  constexpr int64_t kLineElements = 64 / static_cast<int64_t>(sizeof(T));
  for (int64_t i = 0; i < elements; i += kLineElements) {
    __builtin_prefetch(row + i, 1);
    (__builtin_prefetch(more + i, 1), ...);
  }
}

// Calls update(var_offset, grad_offset, length) for each index in order:
// the row of the variable (and its slots) it names and the matching row of
// the gradient. A repeated index is updated again, after the earlier one.
// prefetch(var_offset) is called a few indices ahead: a 1M-row table's rows
// are far apart, and a row's first miss (and its page walk) is most of the
// cost of updating it.
//
// Wide rows are split by column across the device's pool: every element
// still sees its indices in order. Many narrow rows are split by row id
// (id % parts): all of one row's repeats land in the same part, in order,
// so repeats stay sequential without locking. Splitting the index list
// itself would race on repeats.
template <typename Index, typename Update, typename Prefetch>
void ForEachIndexedRow(OpKernelContext* ctx, const Tensor& indices, int64_t row_elements,
                       int64_t cycles_per_element, const Update& update,
                       const Prefetch& prefetch) {
  const int64_t n = indices.NumElements();
  if (n == 0 || row_elements == 0) return;
  const Index* idx = indices.data<Index>();
  constexpr int64_t kAhead = 8;
  constexpr int64_t kMinElementsPerPart = 16384;
  ThreadPoolInterface* pool = ctx->device() ? ctx->device()->intra_op_pool() : nullptr;
  const int64_t threads = pool ? pool->NumThreads() : 1;
  const int64_t parts =
      std::min<int64_t>(threads, n * row_elements / std::max<int64_t>(kMinElementsPerPart, 1));
  if (row_elements >= kMinElementsPerPart || parts <= 1) {
    ParallelUpdate(ctx, row_elements, cycles_per_element * n, [&](int64_t b, int64_t e) {
      for (int64_t i = 0; i < n; ++i) {
        if (i + kAhead < n) prefetch(static_cast<int64_t>(idx[i + kAhead]) * row_elements + b);
        update(static_cast<int64_t>(idx[i]) * row_elements + b, i * row_elements + b, e - b);
      }
    });
    return;
  }
  auto part_of = [parts](Index id) { return static_cast<int64_t>(static_cast<uint64_t>(id) % parts); };
  pool->ParallelFor(parts, cycles_per_element * n * row_elements / parts, [&](int64_t b, int64_t e) {
    for (int64_t part = b; part < e; ++part) {
      int64_t ahead = 0;  // the next index of this part not yet prefetched
      for (int64_t i = 0; i < n; ++i) {
        if (part_of(idx[i]) != part) continue;
        for (ahead = std::max(ahead, i + 1); ahead < n && ahead <= i + kAhead; ++ahead)
          if (part_of(idx[ahead]) == part) prefetch(static_cast<int64_t>(idx[ahead]) * row_elements);
        update(static_cast<int64_t>(idx[i]) * row_elements, i * row_elements, row_elements);
      }
    }
  });
}

template <typename Index, typename Update>
void ForEachIndexedRow(OpKernelContext* ctx, const Tensor& indices, int64_t row_elements,
                       int64_t cycles_per_element, const Update& update) {
  ForEachIndexedRow<Index>(ctx, indices, row_elements, cycles_per_element, update,
                           [](int64_t) {});
}

}  // namespace af::state
