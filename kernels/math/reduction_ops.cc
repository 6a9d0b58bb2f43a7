// Sum, Mean, Prod, Max, Min (and All, Any over bools) over the axes given by the second input.
//
// The input is viewed through a ReductionPlan as alternating kept/reduced
// groups. Each pass folds one reduced group, innermost first, as an
// (outer, reduced, inner) problem: with inner == 1 every output is a
// contiguous run (ReduceContiguous), otherwise rows of `inner` columns are
// combined (ReduceColumns). Most reductions are a single pass; others go
// through temporaries that shrink with every pass.
#include <algorithm>
#include <memory>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/math/reduction_loops.h"
#include "kernels/math/reduction_plan.h"

namespace af {

namespace {

// Elements per independently reduced block of a full reduction: fixed, so the
// result does not depend on how blocks are spread over threads.
constexpr int64_t kFullReductionBlock = int64_t{1} << 15;
// Columns per work unit of a column reduction.
constexpr int64_t kColumnChunk = 512;

template <typename T, typename Reducer>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    ReductionPlan plan;
    Status planned = plan.Init(input.shape(), ctx->input(1), keep_dims_);
    OP_REQUIRES(ctx, planned.ok(), ctx->NodeError(planned));

    if (!plan.reduces() && !reduction::HasFinalize<Reducer>()) {
      // Only size-1 dims (or none) reduced: the output is the input reshaped.
      Tensor reshaped;
      OP_REQUIRES_OK(ctx, input.Reshaped(plan.output_shape(), &reshaped));
      ctx->set_output(0, std::move(reshaped));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    T* dst = out->data<T>();
    const int64_t out_size = out->NumElements();
    if (out_size == 0) return;
    if (input.NumElements() == 0) {
      // Every output folds nothing: the identity (NaN for a mean).
      T empty = Reducer::Identity();
      if constexpr (reduction::HasFinalize<Reducer>()) empty = Reducer::Finalize(empty, 0);
      std::fill(dst, dst + out_size, empty);
      return;
    }

    ReductionPasses passes(plan);
    ReductionPass pass;
    const T* src = input.data<T>();
    Tensor temp;
    while (passes.Next(&pass)) {
      const int64_t outer = pass.outer, folded = pass.rows, inner = pass.inner;
      const bool last = pass.last;

      T* pass_out = dst;
      if (!last) {
        Tensor next;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                               TensorShape{outer * inner}, &next));
        pass_out = next.data<T>();
        Fold(ctx, src, outer, folded, inner, pass_out);
        temp = std::move(next);  // keeps the pass's result alive as the next source
      } else {
        Fold(ctx, src, outer, folded, inner, pass_out);
      }
      if (!ctx->status().ok()) return;
      src = pass_out;
    }
    if (!plan.reduces()) std::copy(src, src + out_size, dst);  // a mean over size-1 dims
    if constexpr (reduction::HasFinalize<Reducer>()) {
      const int64_t count = plan.reduced_count();
      ShardedFor(ctx, out_size, 4, [dst, count](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst[i] = Reducer::Finalize(dst[i], count);
      });
    }
  }

 private:
  // out[o, i] = fold over r of in[o, r, i], for an [outer, rows, inner] input.
  static void Fold(OpKernelContext* ctx, const T* in, int64_t outer, int64_t rows, int64_t inner,
                   T* out) {
    if (inner == 1 && outer == 1) {
      FoldAll(ctx, in, rows, out);
    } else if (inner == 1) {
      ShardedFor(ctx, outer, rows, [=](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o)
          out[o] = reduction::ReduceContiguous<Reducer>(in + o * rows, rows);
      });
    } else {
      FoldColumns(ctx, in, outer, rows, inner, out);
    }
  }

  // One output from all of `in`: fixed blocks reduced (in parallel), then
  // the block results reduced.
  static void FoldAll(OpKernelContext* ctx, const T* in, int64_t n, T* out) {
    const int64_t blocks = (n + kFullReductionBlock - 1) / kFullReductionBlock;
    if (blocks <= 1) {
      *out = reduction::ReduceContiguous<Reducer>(in, n);
      return;
    }
    Tensor partial_t;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape{blocks},
                                           &partial_t));
    T* partial = partial_t.data<T>();
    ShardedFor(ctx, blocks, kFullReductionBlock, [=](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const int64_t start = b * kFullReductionBlock;
        partial[b] = reduction::ReduceContiguous<Reducer>(
            in + start, std::min(kFullReductionBlock, n - start));
      }
    });
    *out = reduction::ReduceContiguous<Reducer>(partial, blocks);
  }

  // Column reductions, split into (outer index, chunk of columns) units.
  static void FoldColumns(OpKernelContext* ctx, const T* in, int64_t outer, int64_t rows,
                          int64_t inner, T* out) {
    const int64_t chunks = (inner + kColumnChunk - 1) / kColumnChunk;
    const int64_t depth = reduction::ColumnScratchDepth(rows);
    ShardedFor(ctx, outer * chunks, rows * std::min(inner, kColumnChunk),
               [=](int64_t begin, int64_t end) {
                 std::unique_ptr<T[]> scratch(new T[depth * std::min(inner, kColumnChunk)]);
                 for (int64_t u = begin; u < end; ++u) {
                   const int64_t o = u / chunks, c0 = (u % chunks) * kColumnChunk;
                   const int64_t width = std::min(kColumnChunk, inner - c0);
                   reduction::ReduceColumns<Reducer>(in + o * rows * inner + c0, rows, inner,
                                                     width, out + o * inner + c0, scratch.get());
                 }
               });
  }

  bool keep_dims_ = false;
};

}  // namespace

#define AF_REGISTER_REDUCTION(OP, REDUCER, T)                                                  \
  REGISTER_KERNEL_BUILDER(                                                                     \
      KernelDefBuilder(OP).Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(),              \
      ReductionOp<T, REDUCER<T>>)
#define AF_REGISTER_REDUCTIONS(T)                             \
  AF_REGISTER_REDUCTION("Sum", reduction::Sum, T);            \
  AF_REGISTER_REDUCTION("Mean", reduction::Mean, T);          \
  AF_REGISTER_REDUCTION("Prod", reduction::Prod, T);          \
  AF_REGISTER_REDUCTION("Max", reduction::Max, T);            \
  AF_REGISTER_REDUCTION("Min", reduction::Min, T)
AF_REGISTER_REDUCTIONS(float);
AF_REGISTER_REDUCTIONS(double);
AF_REGISTER_REDUCTIONS(int32_t);
AF_REGISTER_REDUCTIONS(int64_t);
// All and Any take bools and have no T attr.
REGISTER_KERNEL_BUILDER(KernelDefBuilder("All").Device(DEVICE_CPU).Expensive(),
                        ReductionOp<bool, reduction::All<bool>>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Any").Device(DEVICE_CPU).Expensive(),
                        ReductionOp<bool, reduction::Any<bool>>);
#undef AF_REGISTER_REDUCTIONS
#undef AF_REGISTER_REDUCTION

}  // namespace af
