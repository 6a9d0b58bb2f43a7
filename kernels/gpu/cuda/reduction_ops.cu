// CUDA Sum, Mean, Prod, Max and Min over the axes of a host int32/int64
// tensor, with keep_dims.
//
// The input is viewed through the CPU kernels' ReductionPlan as alternating
// kept/reduced groups (size-1 dims dropped, neighbours of one kind merged).
// Each pass folds the innermost reduced group as an (outer, rows, inner)
// problem, like the CPU kernel:
//  - inner == 1, a row reduction: a thread per row for short rows, a warp
//    per row, or blocks of 256 threads for long rows, with a long row split
//    over several blocks (and their partials folded by a second launch)
//    when there are too few rows to fill the device;
//  - inner > 1, a column reduction: each thread owns a few adjacent
//    columns, a warp reads whole rows, and the rows are split over blocks
//    (at most 256 slices, folded by one more launch) when the columns alone
//    would leave the device idle.
// Loads are 16 bytes wide where the sizes and pointers allow, with four in
// flight per thread. A pass over fewer than 256K elements is one launch.
// Most reductions are one pass; the others (e.g. axes {0, 2} of a 3-D
// tensor) fold one reduced group per pass through temporaries, which keeps
// every pass coalesced instead of transposing first. Sums accumulate in
// float (double for double); Max/Min propagate NaN; Mean divides at the
// end; an empty reduction gives the identity (0, 1, -inf, +inf; NaN for
// Mean) as the CPU kernel does.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/math/reduction_plan.h"

namespace af::gpu {
namespace {

// ---------------------------------------------------------------------------
// Reducers.

struct SumR {
  static constexpr bool kMean = false;
  template <typename A>
  __device__ __forceinline__ A Identity() const { return A(0); }
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return a + b; }
};
struct MeanR : SumR {
  static constexpr bool kMean = true;
};
struct ProdR {
  static constexpr bool kMean = false;
  template <typename A>
  __device__ __forceinline__ A Identity() const { return A(1); }
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return a * b; }
};
struct MaxR {
  static constexpr bool kMean = false;
  template <typename A>
  __device__ __forceinline__ A Identity() const { return -static_cast<A>(INFINITY); }
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return (a > b || a != a) ? a : b; }
};
struct MinR {
  static constexpr bool kMean = false;
  template <typename A>
  __device__ __forceinline__ A Identity() const { return static_cast<A>(INFINITY); }
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return (a < b || a != a) ? a : b; }
};

// The value of a finished reduction: Mean divides by the count (divisor >
// 0 only on the last pass).
template <typename R, typename A>
__device__ __forceinline__ A Finish(A v, A divisor) {
  if constexpr (R::kMean) {
    return divisor > A(0) ? v / divisor : v;
  } else {
    return v;
  }
}

// Combines a value across the 32 lanes of a warp; lane 0 ends with it.
template <typename R, typename A>
__device__ __forceinline__ A WarpReduce(A v, R red) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v = red(v, __shfl_down_sync(0xFFFFFFFFu, v, off));
  return v;
}

// ---------------------------------------------------------------------------
// Row reduction: in is [rows, len]. Each row is split into `splits` chunks
// of `chunk` elements (grid.y); kRowThreads threads (1, 32 or 256) reduce
// one chunk, V elements per load (len and chunk multiples of V, rows
// aligned) and four loads in flight. With splits == 1 the result goes to
// out[row] finished, else to partial[row * splits + split].

template <typename In, typename Out, typename A, typename R, int kRowThreads, int V>
__global__ void __launch_bounds__(kThreads)
    RowReduceKernel(const In* __restrict__ in, int64_t rows, int64_t len, int64_t chunk,
                    A* __restrict__ partial, Out* __restrict__ out, A divisor, R red) {
  constexpr int kRowsPerBlock = kThreads / kRowThreads;
  constexpr int kStep = kRowThreads * V;
  __shared__ A warp_vals[kThreads / 32];
  const int lane = threadIdx.x % kRowThreads;
  const int64_t split = blockIdx.y;
  const int64_t c0 = split * chunk;
  const int64_t c1 = min(len, c0 + chunk);
  for (int64_t row0 = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock; row0 < rows;
       row0 += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const int64_t row = row0 + threadIdx.x / kRowThreads;
    A acc[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[k] = red.template Identity<A>();
    if (row < rows) {
      const In* p = in + row * len;
      int64_t i = c0 + static_cast<int64_t>(lane) * V;
      for (; i + 3 * kStep < c1; i += 4 * kStep) {
        Vec<In, V> v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = LoadVec<V>(p + i + k * kStep);
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
          for (int j = 0; j < V; ++j) acc[k] = red(acc[k], ToAcc<A>(v[k].v[j]));
      }
      for (; i < c1; i += kStep) {
        const Vec<In, V> v = LoadVec<V>(p + i);
#pragma unroll
        for (int j = 0; j < V; ++j) acc[0] = red(acc[0], ToAcc<A>(v.v[j]));
      }
    }
    A s = red(red(acc[0], acc[1]), red(acc[2], acc[3]));
    if constexpr (kRowThreads >= 32) s = WarpReduce(s, red);
    if constexpr (kRowThreads > 32) {
      if (threadIdx.x % 32 == 0) warp_vals[threadIdx.x / 32] = s;
      __syncthreads();
      if (threadIdx.x == 0) {
        s = warp_vals[0];
#pragma unroll
        for (int w = 1; w < kThreads / 32; ++w) s = red(s, warp_vals[w]);
      }
      __syncthreads();
    }
    if (lane == 0 && row < rows) {
      if (gridDim.y == 1) {
        out[row] = FromAcc<Out>(Finish<R>(s, divisor));
      } else {
        partial[row * gridDim.y + split] = s;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Column reduction: in is [outer, rows, inner]; out[o, c] folds over the
// rows. Each thread owns V adjacent columns (16-byte loads where inner and
// the pointer allow) and keeps four rows' loads in flight. Block
// (blockDim.x column vectors, blockDim.y row lanes); grid.x column tiles,
// grid.y row splits of rows_per_split, grid.z (strided) outer. With one
// split the result goes to out[o * inner + c] finished, else to
// partial[(o * splits + split) * inner + c].

template <typename In, typename Out, typename A, typename R, int V>
__global__ void __launch_bounds__(kThreads)
    ColumnReduceKernel(const In* __restrict__ in, int64_t outer, int64_t rows, int64_t inner,
                       int64_t rows_per_split, A* __restrict__ partial, Out* __restrict__ out,
                       A divisor, R red) {
  __shared__ A tile[kThreads * V];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int lanes = blockDim.y;
  const int64_t c = (static_cast<int64_t>(blockIdx.x) * blockDim.x + tx) * V;
  const int64_t split = blockIdx.y;
  const int64_t r0 = split * rows_per_split;
  const int64_t r1 = min(rows, r0 + rows_per_split);
  for (int64_t o = blockIdx.z; o < outer; o += gridDim.z) {
    A acc[4][V];
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[k][j] = red.template Identity<A>();
    if (c < inner) {
      const In* base = in + o * rows * inner + c;
      int64_t r = r0 + ty;
      for (; r + 3 * lanes < r1; r += 4 * lanes) {
        Vec<In, V> v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = LoadVec<V>(base + (r + k * lanes) * inner);
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
          for (int j = 0; j < V; ++j) acc[k][j] = red(acc[k][j], ToAcc<A>(v[k].v[j]));
      }
      for (; r < r1; r += lanes) {
        const Vec<In, V> v = LoadVec<V>(base + r * inner);
#pragma unroll
        for (int j = 0; j < V; ++j) acc[0][j] = red(acc[0][j], ToAcc<A>(v.v[j]));
      }
    }
    A s[V];
#pragma unroll
    for (int j = 0; j < V; ++j) s[j] = red(red(acc[0][j], acc[1][j]), red(acc[2][j], acc[3][j]));
    if (lanes > 1) {
#pragma unroll
      for (int j = 0; j < V; ++j) tile[(ty * blockDim.x + tx) * V + j] = s[j];
      __syncthreads();
      if (ty == 0) {
        for (int k = 1; k < lanes; ++k)
#pragma unroll
          for (int j = 0; j < V; ++j) s[j] = red(s[j], tile[(k * blockDim.x + tx) * V + j]);
      }
      __syncthreads();
    }
    if (ty == 0 && c < inner) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (gridDim.y == 1) {
          out[o * inner + c + j] = FromAcc<Out>(Finish<R>(s[j], divisor));
        } else {
          partial[(o * gridDim.y + split) * inner + c + j] = s[j];
        }
      }
    }
  }
}

template <typename Out, typename A, typename R>
__global__ void __launch_bounds__(kThreads) FillEmptyKernel(Out* out, int64_t n, R red) {
  A v = red.template Identity<A>();
  if constexpr (R::kMean) v = static_cast<A>(NAN);  // the mean of nothing: 0 / 0
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = FromAcc<Out>(v);
}

// ---------------------------------------------------------------------------
// Launchers.

struct PassContext {
  OpKernelContext* ctx;
  cudaStream_t stream;
  int sms;
};

Status Scratch(OpKernelContext* ctx, int64_t bytes, Tensor* t) {
  return ctx->allocate_temp(DT_UINT8, TensorShape{std::max<int64_t>(bytes, 1)}, t);
}

// Below this many input elements a reduction is one launch, whatever its
// shape: splitting costs more than it saves.
constexpr int64_t kSplitMinElements = 1 << 18;

template <typename In, typename Out, typename A, typename R, int kRowThreads, int V>
Status LaunchRows(const PassContext& pc, const In* in, int64_t rows, int64_t len, int64_t splits,
                  int64_t chunk, A* partial, Out* out, A divisor) {
  constexpr int kRowsPerBlock = kThreads / kRowThreads;
  const int64_t row_blocks = std::min<int64_t>((rows + kRowsPerBlock - 1) / kRowsPerBlock,
                                               int64_t{1} << 30);
  dim3 grid(static_cast<unsigned>(row_blocks), static_cast<unsigned>(splits));
  RowReduceKernel<In, Out, A, R, kRowThreads, V>
      <<<grid, kThreads, 0, pc.stream>>>(in, rows, len, chunk, partial, out, divisor, R());
  return CheckLaunch("RowReduceKernel");
}

// A row launch with V-element loads when the rows and chunks allow them.
template <typename In, typename Out, typename A, typename R, int kRowThreads>
Status LaunchRowsVec(const PassContext& pc, const In* in, int64_t rows, int64_t len,
                     int64_t splits, int64_t chunk, A* partial, Out* out, A divisor) {
  constexpr int V = kVecWidth<In>;
  if (V > 1 && len % V == 0 && chunk % V == 0 && Aligned(in, 16))
    return LaunchRows<In, Out, A, R, kRowThreads, V>(pc, in, rows, len, splits, chunk, partial,
                                                     out, divisor);
  return LaunchRows<In, Out, A, R, kRowThreads, 1>(pc, in, rows, len, splits, chunk, partial, out,
                                                   divisor);
}

// out[r] = fold of in[r, 0..len), r < rows.
template <typename In, typename Out, typename A, typename R>
Status ReduceRows(const PassContext& pc, const In* in, int64_t rows, int64_t len, Out* out,
                  A divisor) {
  if (len <= 16) {
    return LaunchRows<In, Out, A, R, 1, 1>(pc, in, rows, len, 1, len, nullptr, out, divisor);
  }
  if (len <= 2048) {
    return LaunchRowsVec<In, Out, A, R, 32>(pc, in, rows, len, 1, len, nullptr, out, divisor);
  }
  // Long rows: blocks of 256 threads, a row split over several blocks when
  // the rows alone would not fill the device (each chunk >= 4096 elements,
  // at most 1024 chunks so that one more pass folds the partials).
  const int64_t target_blocks = 4LL * pc.sms;
  int64_t splits = 1;
  if (rows < target_blocks && rows * len >= kSplitMinElements) {
    splits = std::min<int64_t>((target_blocks + rows - 1) / rows, len / 4096);
    splits = std::max<int64_t>(1, std::min<int64_t>(splits, 1024));
  }
  int64_t chunk = (len + splits - 1) / splits;
  chunk = (chunk + 15) / 16 * 16;  // whole vectors of any width
  splits = (len + chunk - 1) / chunk;
  if (splits == 1) {
    return LaunchRowsVec<In, Out, A, R, kThreads>(pc, in, rows, len, 1, len, nullptr, out,
                                                  divisor);
  }
  Tensor scratch;
  AF_RETURN_IF_ERROR(Scratch(pc.ctx, rows * splits * static_cast<int64_t>(sizeof(A)), &scratch));
  A* partial = static_cast<A*>(scratch.raw_data());
  AF_RETURN_IF_ERROR((LaunchRowsVec<In, Out, A, R, kThreads>(pc, in, rows, len, splits, chunk,
                                                              partial, nullptr, divisor)));
  return ReduceRows<A, Out, A, R>(pc, partial, rows, splits, out, divisor);
}

template <typename In, typename Out, typename A, typename R, int V>
Status LaunchColumns(const PassContext& pc, const In* in, int64_t outer, int64_t rows,
                     int64_t inner, Out* out, A divisor, bool allow_split) {
  const int64_t vectors = inner / V;  // column vectors per row
  int bx = 1;
  while (bx < 32 && bx < vectors) bx *= 2;
  // Few rows: wide blocks with one row lane.
  if (rows < 8 && vectors >= kThreads) bx = kThreads;
  const int by = kThreads / bx;
  const int64_t col_blocks = (vectors + bx - 1) / bx;
  if (col_blocks > 0x7FFFFFFFLL)
    return errors::InvalidArgument("reduction with ", inner, " columns is too large");
  const int64_t outer_blocks = std::min<int64_t>(outer, 65535);
  const int64_t target_blocks = 4LL * pc.sms;
  int64_t splits = 1;
  if (allow_split && col_blocks * outer_blocks < target_blocks &&
      outer * rows * inner >= kSplitMinElements) {
    splits = (target_blocks + col_blocks * outer_blocks - 1) / (col_blocks * outer_blocks);
    splits = std::min<int64_t>(splits, rows / (8LL * by));  // >= 8 rows per lane
    splits = std::max<int64_t>(1, std::min<int64_t>(splits, 256));
  }
  const int64_t rows_per_split = (rows + splits - 1) / splits;
  splits = (rows + rows_per_split - 1) / rows_per_split;
  A* partial = nullptr;
  Tensor scratch;
  if (splits > 1) {
    AF_RETURN_IF_ERROR(
        Scratch(pc.ctx, outer * splits * inner * static_cast<int64_t>(sizeof(A)), &scratch));
    partial = static_cast<A*>(scratch.raw_data());
  }
  dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(splits),
            static_cast<unsigned>(outer_blocks));
  dim3 block(bx, by);
  ColumnReduceKernel<In, Out, A, R, V><<<grid, block, 0, pc.stream>>>(
      in, outer, rows, inner, rows_per_split, partial, out, divisor, R());
  AF_RETURN_IF_ERROR(CheckLaunch("ColumnReduceKernel"));
  if (splits == 1) return Status::OK();
  // The partials: at most 256 rows per column, one more pass.
  constexpr int VA = kVecWidth<A>;
  if (inner % VA == 0 && Aligned(partial, 16))
    return LaunchColumns<A, Out, A, R, VA>(pc, partial, outer, splits, inner, out, divisor, false);
  return LaunchColumns<A, Out, A, R, 1>(pc, partial, outer, splits, inner, out, divisor, false);
}

// out[o, c] = fold over r of in[o, r, c].
template <typename In, typename Out, typename A, typename R>
Status ReduceColumns(const PassContext& pc, const In* in, int64_t outer, int64_t rows,
                     int64_t inner, Out* out, A divisor) {
  constexpr int V = kVecWidth<In>;
  if (V > 1 && inner % V == 0 && Aligned(in, 16))
    return LaunchColumns<In, Out, A, R, V>(pc, in, outer, rows, inner, out, divisor, true);
  return LaunchColumns<In, Out, A, R, 1>(pc, in, outer, rows, inner, out, divisor, true);
}

template <typename In, typename Out, typename A, typename R>
Status Fold(const PassContext& pc, const In* in, int64_t outer, int64_t rows, int64_t inner,
            Out* out, A divisor) {
  if (inner == 1) return ReduceRows<In, Out, A, R>(pc, in, outer, rows, out, divisor);
  return ReduceColumns<In, Out, A, R>(pc, in, outer, rows, inner, out, divisor);
}

// Runs every pass of `plan` from `input` into `out` (both T).
template <typename T, typename R>
Status RunReduction(const PassContext& pc, const ReductionPlan& plan, const T* input, T* out,
                    int64_t out_size) {
  using A = Acc<T>;
  const A divisor = R::kMean ? static_cast<A>(plan.reduced_count()) : A(0);
  const T* src_t = input;     // the source while it is still the input
  const A* src_a = nullptr;   // the source once it is a temporary
  Tensor temps[2];
  int next_temp = 0;
  ReductionPasses passes(plan);
  ReductionPass pass;
  while (passes.Next(&pass)) {
    const int64_t outer = pass.outer, rows = pass.rows, inner = pass.inner;
    if (pass.last) {
      if (outer * inner != out_size)
        return errors::Internal("reduction plan mismatch: ", outer * inner, " vs ", out_size);
      return src_a ? Fold<A, T, A, R>(pc, src_a, outer, rows, inner, out, divisor)
                   : Fold<T, T, A, R>(pc, src_t, outer, rows, inner, out, divisor);
    }
    Tensor& t = temps[next_temp];
    next_temp ^= 1;
    AF_RETURN_IF_ERROR(Scratch(pc.ctx, outer * inner * static_cast<int64_t>(sizeof(A)), &t));
    A* dst = static_cast<A*>(t.raw_data());
    AF_RETURN_IF_ERROR((src_a ? Fold<A, A, A, R>(pc, src_a, outer, rows, inner, dst, A(0))
                              : Fold<T, A, A, R>(pc, src_t, outer, rows, inner, dst, A(0))));
    src_a = dst;
  }
  return errors::Internal("reduction plan with nothing to reduce");
}

template <typename R>
class CudaReductionOp : public OpKernel {
 public:
  explicit CudaReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    ReductionPlan plan;
    Status planned = plan.Init(input.shape(), ctx->input(1), keep_dims_);
    OP_REQUIRES(ctx, planned.ok(), ctx->NodeError(planned));
    if (!plan.reduces()) {
      // Only size-1 dims (or none) reduced: the input reshaped (a mean over
      // one element is that element).
      Tensor reshaped;
      Status s = input.Reshaped(plan.output_shape(), &reshaped);
      OP_REQUIRES(ctx, s.ok(), ctx->NodeError(s));
      ctx->set_output(0, std::move(reshaped));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    const int64_t out_size = out->NumElements();
    if (out_size == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    PassContext pc{ctx, stream, GpuContext(ctx)->properties().multiprocessor_count};
    if (pc.sms <= 0) pc.sms = 132;
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* dst = static_cast<T*>(out->raw_data());
      if (input.NumElements() == 0) {
        FillEmptyKernel<T, Acc<T>, R>
            <<<GridFor(out_size, kThreads), kThreads, 0, pc.stream>>>(dst, out_size, R());
        s = CheckLaunch("FillEmptyKernel");
        return;
      }
      s = RunReduction<T, R>(pc, plan, static_cast<const T*>(input.raw_data()), dst, out_size);
    });
    OP_REQUIRES(ctx, known,
                ctx->NodeError(errors::Unimplemented(type_string(), " has no GPU kernel for ",
                                                     DataTypeString(input_type(0)))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }

 private:
  bool keep_dims_ = false;
};

}  // namespace

REGISTER_CUDA_KERNEL("Sum", CudaReductionOp<SumR>);
REGISTER_CUDA_KERNEL("Mean", CudaReductionOp<MeanR>);
REGISTER_CUDA_KERNEL("Prod", CudaReductionOp<ProdR>);
REGISTER_CUDA_KERNEL("Max", CudaReductionOp<MaxR>);
REGISTER_CUDA_KERNEL("Min", CudaReductionOp<MinR>);

}  // namespace af::gpu
