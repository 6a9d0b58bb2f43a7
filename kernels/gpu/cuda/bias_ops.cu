// CUDA BiasAdd and BiasAddGrad (NHWC and NCHW).
//
// BiasAdd is an element-wise loop, 16 bytes per access where the channel
// count and the pointers allow it. BiasAddGrad is a column reduction of the
// gradient seen as [rows, channels] (NHWC): each thread sums a few adjacent
// channels over a slice of the rows (16-byte loads, four in flight), so
// even a few channels over millions of rows keep the whole device busy,
// and a second small pass adds the (at most 256) slice sums of each
// channel. Gradients under 256K elements take one launch. NCHW first sums
// each (n, c) run of H*W contiguous elements, then reduces the resulting
// [N, C] the same way. float sums in double, as the CPU kernel does (a
// channel can collect millions of terms).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/nn/bias_add_shape.h"

namespace af::gpu {
namespace {

// Accumulator of the gradient sums: double for float and double.
template <typename T>
using SumAcc = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double,
                                  float>;

int SmCount(OpKernelContext* ctx) {
  const int sms = GpuContext(ctx)->properties().multiprocessor_count;
  return sms > 0 ? sms : 132;
}

// ---------------------------------------------------------------------------
// BiasAdd: z[e] = x[e] + b[channel(e)], channel(e) = (e / inner) % channels.
// N elements per access (inner == 1 and channels % N == 0, or inner % N == 0,
// so the N elements share ... one bias value or consecutive ones).

template <typename T, int N, bool kInnerOne, typename Index>
__global__ void __launch_bounds__(kThreads)
    BiasAddKernel(const T* __restrict__ x, const T* __restrict__ b, T* __restrict__ z, Index nvec,
                  Index channels, Index inner) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < nvec;
       i += stride) {
    const Index e = i * N;
    const Vec<T, N> a = *reinterpret_cast<const Vec<T, N>*>(x + e);
    Vec<T, N> r;
    if constexpr (kInnerOne) {
      const Index c = e % channels;  // N consecutive channels
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(ToAcc(a.v[k]) + ToAcc(b[c + k]));
    } else {
      const auto bias = ToAcc(b[(e / inner) % channels]);  // one channel for all N
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(ToAcc(a.v[k]) + bias);
    }
    *reinterpret_cast<Vec<T, N>*>(z + e) = r;
  }
}

template <typename T, int N, bool kInnerOne, typename Index>
Status LaunchBiasAdd(cudaStream_t stream, const T* x, const T* b, T* z, int64_t n,
                     int64_t channels, int64_t inner) {
  const int64_t nvec = n / N;
  BiasAddKernel<T, N, kInnerOne, Index><<<GridFor(nvec, kThreads), kThreads, 0, stream>>>(
      x, b, z, static_cast<Index>(nvec), static_cast<Index>(channels),
      static_cast<Index>(inner));
  return CheckLaunch("BiasAddKernel");
}

template <typename T, int N, typename Index>
Status DispatchBiasAdd(cudaStream_t stream, const T* x, const T* b, T* z, int64_t n,
                       int64_t channels, int64_t inner) {
  return inner == 1 ? LaunchBiasAdd<T, N, true, Index>(stream, x, b, z, n, channels, inner)
                    : LaunchBiasAdd<T, N, false, Index>(stream, x, b, z, n, channels, inner);
}

template <typename T>
Status BiasAddImpl(cudaStream_t stream, const T* x, const T* b, T* z, int64_t n,
                   int64_t channels, int64_t inner) {
  constexpr int N = kVecWidth<T>;
  const bool vec = (inner == 1 ? channels % N == 0 : inner % N == 0) &&
                   Aligned(x, sizeof(T) * N) && Aligned(z, sizeof(T) * N);
  const bool small = n < (int64_t{1} << 31);
  if (vec) {
    return small ? DispatchBiasAdd<T, N, uint32_t>(stream, x, b, z, n, channels, inner)
                 : DispatchBiasAdd<T, N, int64_t>(stream, x, b, z, n, channels, inner);
  }
  return small ? DispatchBiasAdd<T, 1, uint32_t>(stream, x, b, z, n, channels, inner)
               : DispatchBiasAdd<T, 1, int64_t>(stream, x, b, z, n, channels, inner);
}

// ---------------------------------------------------------------------------
// Column sums: out[c] = sum over r of in[r * cols + c]. Each thread owns V
// adjacent columns (16-byte loads where cols and the pointer allow) and
// keeps four rows' loads in flight; block (blockDim.x column vectors,
// blockDim.y row lanes), grid.x column tiles, grid.y row splits. With one
// split the sums go to out finished, else to partial[split * cols + c].

template <typename In, typename A, typename Out, int V>
__global__ void __launch_bounds__(kThreads)
    ColumnSumKernel(const In* __restrict__ in, int64_t rows, int64_t cols,
                    int64_t rows_per_split, A* __restrict__ partial, Out* __restrict__ out) {
  __shared__ A tile[kThreads * V];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int lanes = blockDim.y;
  const int64_t c = (static_cast<int64_t>(blockIdx.x) * blockDim.x + tx) * V;
  const int64_t split = blockIdx.y;
  const int64_t r0 = split * rows_per_split;
  const int64_t r1 = min(rows, r0 + rows_per_split);
  A acc[4][V];
#pragma unroll
  for (int k = 0; k < 4; ++k)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[k][j] = A(0);
  if (c < cols) {
    const In* base = in + c;
    int64_t r = r0 + ty;
    for (; r + 3 * lanes < r1; r += 4 * lanes) {
      Vec<In, V> v[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) v[k] = LoadVec<V>(base + (r + k * lanes) * cols);
#pragma unroll
      for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int j = 0; j < V; ++j) acc[k][j] += static_cast<A>(ToAcc(v[k].v[j]));
    }
    for (; r < r1; r += lanes) {
      const Vec<In, V> v = LoadVec<V>(base + r * cols);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[0][j] += static_cast<A>(ToAcc(v.v[j]));
    }
  }
  A s[V];
#pragma unroll
  for (int j = 0; j < V; ++j) s[j] = (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]);
  if (lanes > 1) {
#pragma unroll
    for (int j = 0; j < V; ++j) tile[(ty * blockDim.x + tx) * V + j] = s[j];
    __syncthreads();
    if (ty == 0) {
      for (int k = 1; k < lanes; ++k)
#pragma unroll
        for (int j = 0; j < V; ++j) s[j] += tile[(k * blockDim.x + tx) * V + j];
    }
  }
  if (ty == 0 && c < cols) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (gridDim.y == 1) {
        out[c + j] = FromAcc<Out>(s[j]);
      } else {
        partial[split * cols + c + j] = s[j];
      }
    }
  }
}

// Sums the rows of in [rows, cols] into out [cols]: one pass, or a pass
// over row slices (when the columns alone would leave the device idle)
// and a second over the at most 256 slice sums.
template <typename In, typename A, typename Out, int V>
Status ColumnSumV(OpKernelContext* ctx, cudaStream_t stream, const In* in, int64_t rows,
                  int64_t cols, Out* out, bool allow_split) {
  const int64_t vectors = cols / V;
  int bx = 1;
  while (bx < 32 && bx < vectors) bx *= 2;
  if (rows < 8 && vectors >= kThreads) bx = kThreads;
  const int by = kThreads / bx;
  const int64_t col_blocks = (vectors + bx - 1) / bx;
  if (col_blocks > 0x7FFFFFFFLL) return errors::InvalidArgument("too many columns: ", cols);
  const int64_t target_blocks = 4LL * SmCount(ctx);
  int64_t splits = 1;
  if (allow_split && col_blocks < target_blocks && rows * cols >= (int64_t{1} << 18)) {
    splits = (target_blocks + col_blocks - 1) / col_blocks;
    splits = std::min<int64_t>(splits, rows / (8LL * by));  // >= 8 rows per lane
    splits = std::max<int64_t>(1, std::min<int64_t>(splits, 256));
  }
  const int64_t rows_per_split = (rows + splits - 1) / splits;
  splits = (rows + rows_per_split - 1) / rows_per_split;
  A* partial = nullptr;
  Tensor scratch;
  if (splits > 1) {
    const int64_t bytes = splits * cols * static_cast<int64_t>(sizeof(A));
    AF_RETURN_IF_ERROR(ctx->allocate_temp(DT_UINT8, TensorShape{bytes}, &scratch));
    partial = static_cast<A*>(scratch.raw_data());
  }
  dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(splits));
  dim3 block(bx, by);
  ColumnSumKernel<In, A, Out, V><<<grid, block, 0, stream>>>(in, rows, cols, rows_per_split,
                                                              partial, out);
  AF_RETURN_IF_ERROR(CheckLaunch("ColumnSumKernel"));
  if (splits == 1) return Status::OK();
  constexpr int VA = kVecWidth<A>;
  if (cols % VA == 0 && Aligned(partial, 16))
    return ColumnSumV<A, A, Out, VA>(ctx, stream, partial, splits, cols, out, false);
  return ColumnSumV<A, A, Out, 1>(ctx, stream, partial, splits, cols, out, false);
}

template <typename In, typename A, typename Out>
Status ColumnSum(OpKernelContext* ctx, cudaStream_t stream, const In* in, int64_t rows,
                 int64_t cols, Out* out) {
  constexpr int V = kVecWidth<In>;
  if (V > 1 && cols % V == 0 && Aligned(in, 16))
    return ColumnSumV<In, A, Out, V>(ctx, stream, in, rows, cols, out, true);
  return ColumnSumV<In, A, Out, 1>(ctx, stream, in, rows, cols, out, true);
}

// out[r] = sum of in[r * len, (r + 1) * len): one warp per row, or a whole
// block per row when there are few rows.
template <typename In, typename A, int kRowThreads>
__global__ void __launch_bounds__(kThreads)
    RowSumKernel(const In* __restrict__ in, int64_t rows, int64_t len, A* __restrict__ out) {
  constexpr int kRowsPerBlock = kThreads / kRowThreads;
  __shared__ A warp_sums[kThreads / 32];
  const int lane = threadIdx.x % kRowThreads;
  const int64_t row_in_block = threadIdx.x / kRowThreads;
  for (int64_t row0 = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock; row0 < rows;
       row0 += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const int64_t row = row0 + row_in_block;
    A s = A(0);
    if (row < rows) {
      const In* p = in + row * len;
      for (int64_t i = lane; i < len; i += kRowThreads) s += static_cast<A>(ToAcc(p[i]));
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xFFFFFFFFu, s, off);
    if constexpr (kRowThreads == 32) {
      if (lane == 0 && row < rows) out[row] = s;
    } else {
      // One row per block: combine the warps.
      if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
      __syncthreads();
      if (threadIdx.x == 0) {
        A t = A(0);
#pragma unroll
        for (int w = 0; w < kThreads / 32; ++w) t += warp_sums[w];
        if (row < rows) out[row] = t;
      }
      __syncthreads();
    }
  }
}

template <typename T>
Status BiasAddGradImpl(OpKernelContext* ctx, cudaStream_t stream, const T* g, int64_t outer,
                       int64_t channels, int64_t inner, T* out) {
  using A = SumAcc<T>;
  if (inner == 1) return ColumnSum<T, A, T>(ctx, stream, g, outer, channels, out);
  // NCHW: each (n, c) row of `inner` elements first, then the [N, C] sums.
  const int64_t rows = outer * channels;
  Tensor scratch;
  AF_RETURN_IF_ERROR(ctx->allocate_temp(
      DT_UINT8, TensorShape{rows * static_cast<int64_t>(sizeof(A))}, &scratch));
  A* row_sums = static_cast<A*>(scratch.raw_data());
  if (rows * 32 >= 64LL * 1024 || inner < 1024) {
    const int64_t blocks = (rows + kThreads / 32 - 1) / (kThreads / 32);
    RowSumKernel<T, A, 32><<<GridFor(blocks * kThreads, kThreads), kThreads, 0, stream>>>(
        g, rows, inner, row_sums);
  } else {
    RowSumKernel<T, A, kThreads>
        <<<static_cast<unsigned>(std::min<int64_t>(rows, 65535LL * 32)), kThreads, 0, stream>>>(
            g, rows, inner, row_sums);
  }
  AF_RETURN_IF_ERROR(CheckLaunch("RowSumKernel"));
  return ColumnSum<A, A, T>(ctx, stream, row_sums, outer, channels, out);
}

// ---------------------------------------------------------------------------

class CudaBiasAddOp : public BiasAddKernelBase {
 public:
  using BiasAddKernelBase::BiasAddKernelBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    BiasAddDims d;
    OP_REQUIRES_OK(ctx, PrepareBiasAdd(ctx, &d));
    Tensor* out = d.out;
    if (d.total == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      s = BiasAddImpl<T>(stream, static_cast<const T*>(value.raw_data()),
                         static_cast<const T*>(bias.raw_data()), static_cast<T*>(out->raw_data()),
                         d.total, d.channels, d.inner);
    });
    OP_REQUIRES(ctx, known,
                ctx->NodeError(errors::Unimplemented("BiasAdd has no GPU kernel for ",
                                                     DataTypeString(input_type(0)))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

class CudaBiasAddGradOp : public BiasAddKernelBase {
 public:
  using BiasAddKernelBase::BiasAddKernelBase;

  void Compute(OpKernelContext* ctx) override {
    BiasAddDims d;
    OP_REQUIRES_OK(ctx, PrepareBiasAddGrad(ctx, &d));
    Tensor* out = d.out;
    if (d.channels == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    if (d.total == 0) {  // no terms: zeros
      OP_REQUIRES_CUDA(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), stream),
                       "BiasAddGrad memset");
      return;
    }
    const Tensor& grad = ctx->input(0);
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      s = BiasAddGradImpl<T>(ctx, stream, static_cast<const T*>(grad.raw_data()), d.outer,
                             d.channels, d.inner, static_cast<T*>(out->raw_data()));
    });
    OP_REQUIRES(ctx, known,
                ctx->NodeError(errors::Unimplemented("BiasAddGrad has no GPU kernel for ",
                                                     DataTypeString(input_type(0)))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("BiasAdd", CudaBiasAddOp);
REGISTER_CUDA_KERNEL("BiasAddGrad", CudaBiasAddGradOp);

}  // namespace af::gpu
