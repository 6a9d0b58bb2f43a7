// CUDA binary element-wise kernels with broadcasting, and AddN.
//
// Every kernel is enqueued on the device's compute stream and returns at
// once. Loops move 16 bytes per thread and access (float4, double2, 8
// halves) whenever the pointers allow it (vec_loop.cuh); broadcasting reuses
// the CPU kernels' plan (kernels/math/broadcast.h), which collapses the
// shapes into a few merged dims, and picks a loop from it: same shape, one
// scalar operand, a row or a column operand, or a general strided walk over
// up to eight merged dims. Half and bfloat16 compute in float. Maximum and
// Minimum keep NaN, as the CPU kernels do.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/vec_loop.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/math/broadcast.h"

namespace af::gpu {
namespace {

// ---------------------------------------------------------------------------
// Functors. Binary ones take (x, y) in the compute type.

struct AddF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return a + b; }
};
struct SubF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return a - b; }
};
struct MulF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return a * b; }
};
struct DivF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return a / b; }
};
// NaN-propagating, as the CPU's Maximum/Minimum.
struct MaximumF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return (a > b || a != a) ? a : b; }
};
struct MinimumF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return (a < b || a != a) ? a : b; }
};
struct SquaredDifferenceF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    const A d = a - b;
    return d * d;
  }
};
struct PowF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return DPow(a, b); }
};

// One operand a single element (read from device memory by every thread,
// served from cache); `scalar_is_x` says which side it is.
template <typename T, typename F>
struct ScalarBody {
  const T* full;
  const T* scalar;
  T* z;
  bool scalar_is_x;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Acc<T> s = ToAcc(*scalar);
    const Vec<T, N> a = LoadVec<N>(full + e);
    Vec<T, N> r;
    if (scalar_is_x) {
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(s, ToAcc(a.v[k])));
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k]), s));
    }
    StoreVec<N>(z + e, r);
  }
};

// out is [rows, cols]; `row` has cols elements and repeats down the rows
// (BiasAdd-like). 32-bit index arithmetic (callers check the size); cols is
// a multiple of N.
template <typename T, typename F>
struct RowBody {
  const T* full;
  const T* row;
  T* z;
  uint32_t cols;
  bool row_is_x;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e64) const {
    const uint32_t e = static_cast<uint32_t>(e64);
    const uint32_t c = e % cols;
    const Vec<T, N> a = LoadVec<N>(full + e);
    const Vec<T, N> b = LoadVec<N>(row + c);
    Vec<T, N> r;
    if (row_is_x) {
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(b.v[k]), ToAcc(a.v[k])));
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k]), ToAcc(b.v[k])));
    }
    StoreVec<N>(z + e, r);
  }
};

// out is [rows, cols]; `col` has rows elements, each repeated along its row.
template <typename T, typename F>
struct ColumnBody {
  const T* full;
  const T* col;
  T* z;
  uint32_t cols;
  bool col_is_x;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e64) const {
    const uint32_t e = static_cast<uint32_t>(e64);
    const Acc<T> s = ToAcc(col[e / cols]);
    const Vec<T, N> a = LoadVec<N>(full + e);
    Vec<T, N> r;
    if (col_is_x) {
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(s, ToAcc(a.v[k])));
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k]), s));
    }
    StoreVec<N>(z + e, r);
  }
};

// The general broadcast: output index -> coordinates over the merged dims
// -> operand offsets (stride 0 where an operand is broadcast).
constexpr int kMaxDims = 8;

template <typename Index>
struct StridedIndexer {
  int rank;
  Index dims[kMaxDims];
  Index x_strides[kMaxDims];
  Index y_strides[kMaxDims];
};

template <typename T, typename F, typename Index>
__global__ void __launch_bounds__(kThreads)
    GeneralBroadcastKernel(const T* x, const T* y, T* z, Index n, StridedIndexer<Index> ix, F f) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index e = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    Index rem = e, xo = 0, yo = 0;
#pragma unroll
    for (int d = kMaxDims - 1; d >= 0; --d) {
      if (d < ix.rank) {
        const Index q = rem / ix.dims[d];
        const Index c = rem - q * ix.dims[d];
        rem = q;
        xo += c * ix.x_strides[d];
        yo += c * ix.y_strides[d];
      }
    }
    z[e] = FromAcc<T>(f(ToAcc(x[xo]), ToAcc(y[yo])));
  }
}

template <typename T, typename F, typename Index>
Status LaunchGeneral(cudaStream_t stream, const BinaryBroadcast& plan, const T* x, const T* y,
                     T* z, F f) {
  StridedIndexer<Index> ix{};
  ix.rank = plan.dims().size();
  for (int d = 0; d < ix.rank; ++d) {
    ix.dims[d] = static_cast<Index>(plan.dims()[d]);
    ix.x_strides[d] = static_cast<Index>(plan.x_strides()[d]);
    ix.y_strides[d] = static_cast<Index>(plan.y_strides()[d]);
  }
  const int64_t n = plan.num_elements();
  GeneralBroadcastKernel<T, F, Index>
      <<<GridFor(n, kThreads), kThreads, 0, stream>>>(x, y, z, static_cast<Index>(n), ix, f);
  return CheckLaunch("GeneralBroadcastKernel");
}

template <typename T, typename F>
Status LaunchBinary(cudaStream_t stream, const BinaryBroadcast& plan, const T* x, const T* y,
                    T* z, F f) {
  using Kind = BinaryBroadcast::Kind;
  constexpr int N = kVecWidth<T>;
  constexpr size_t kVecBytes = sizeof(T) * N;
  const int64_t n = plan.num_elements();
  if (n == 0) return Status::OK();
  const bool small = n < (int64_t{1} << 31);
  switch (plan.kind()) {
    case Kind::kSameShape: {
      const bool vec = Aligned(x, kVecBytes) && Aligned(y, kVecBytes) && Aligned(z, kVecBytes);
      return LaunchVecLoop<N>(stream, n, vec, BinaryBody<T, F>{x, y, z, f}, "BinaryKernel");
    }
    case Kind::kXScalar:
    case Kind::kYScalar: {
      const bool x_scalar = plan.kind() == Kind::kXScalar;
      const T* full = x_scalar ? y : x;
      const T* scalar = x_scalar ? x : y;
      const bool vec = Aligned(full, kVecBytes) && Aligned(z, kVecBytes);
      return LaunchVecLoop<N>(stream, n, vec, ScalarBody<T, F>{full, scalar, z, x_scalar, f},
                              "ScalarBinaryKernel");
    }
    case Kind::kXRow:
    case Kind::kYRow: {
      if (!small) break;
      const bool x_row = plan.kind() == Kind::kXRow;
      const T* full = x_row ? y : x;
      const T* row = x_row ? x : y;
      const bool vec = plan.cols() % N == 0 && Aligned(full, kVecBytes) &&
                       Aligned(row, kVecBytes) && Aligned(z, kVecBytes);
      return LaunchVecLoop<N>(
          stream, n, vec,
          RowBody<T, F>{full, row, z, static_cast<uint32_t>(plan.cols()), x_row, f},
          "RowBinaryKernel");
    }
    case Kind::kXColumn:
    case Kind::kYColumn: {
      if (!small) break;
      const bool x_col = plan.kind() == Kind::kXColumn;
      const T* full = x_col ? y : x;
      const T* col = x_col ? x : y;
      const bool vec =
          plan.cols() % N == 0 && Aligned(full, kVecBytes) && Aligned(z, kVecBytes);
      return LaunchVecLoop<N>(
          stream, n, vec,
          ColumnBody<T, F>{full, col, z, static_cast<uint32_t>(plan.cols()), x_col, f},
          "ColumnBinaryKernel");
    }
    case Kind::kGeneral:
      break;
  }
  if (plan.dims().size() > kMaxDims)
    return errors::Unimplemented("broadcasting over more than ", kMaxDims,
                                 " merged dimensions is not supported on GPU");
  return small ? LaunchGeneral<T, F, uint32_t>(stream, plan, x, y, z, f)
               : LaunchGeneral<T, F, int64_t>(stream, plan, x, y, z, f);
}

// ---------------------------------------------------------------------------
// Kernels.

template <typename F>
class CudaBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryBroadcast plan;
    Status planned = plan.Init(x.shape(), y.shape());
    OP_REQUIRES(ctx, planned.ok(), ctx->NodeError(planned));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    if (plan.num_elements() == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      s = LaunchBinary<T>(stream, plan, static_cast<const T*>(x.raw_data()),
                          static_cast<const T*>(y.raw_data()), static_cast<T*>(out->raw_data()),
                          F());
    });
    OP_REQUIRES(ctx, known, ctx->NodeError(UnsupportedType(*this, input_type(0))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

// ---------------------------------------------------------------------------
// AddN: up to kAddNChunk inputs per launch; further chunks add onto the
// output. Within a chunk the sum runs in input order, as the CPU's.

constexpr int kAddNChunk = 8;

template <typename T>
struct AddNBody {
  const T* in[kAddNChunk];
  int count;
  bool accumulate;  // add onto what `out` holds
  T* out;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    Acc<T> s[N];
    const Vec<T, N> first = LoadVec<N>(accumulate ? out + e : in[0] + e);
#pragma unroll
    for (int k = 0; k < N; ++k) s[k] = ToAcc(first.v[k]);
    // j is a constant after unrolling: in[j] stays a plain parameter load.
#pragma unroll
    for (int j = 0; j < kAddNChunk; ++j) {
      if (j < count && (accumulate || j > 0)) {
        const Vec<T, N> v = LoadVec<N>(in[j] + e);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          // Round after every add for 16-bit types, like a sum held in T.
          s[k] = ToAcc(FromAcc<T>(s[k] + ToAcc(v.v[k])));
        }
      }
    }
    Vec<T, N> r;
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(s[k]);
    StoreVec<N>(out + e, r);
  }
};

class CudaAddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n_inputs = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n_inputs; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  ctx->NodeError(errors::InvalidArgument(
                      "Inputs to operation ", name(), " of type ", type_string(),
                      " must have the same size and shape.  Input 0: ", first.shape().DebugString(),
                      " != input ", i, ": ", ctx->input(i).shape().DebugString())));
    }
    if (n_inputs == 1) {
      ctx->set_output(0, first);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    const int64_t n = first.NumElements();
    if (n == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr int N = kVecWidth<T>;
      T* zp = static_cast<T*>(out->raw_data());
      bool vec = Aligned(zp, sizeof(T) * N);
      for (int i = 0; i < n_inputs; ++i) vec = vec && Aligned(ctx->input(i).raw_data(), sizeof(T) * N);
      int next = 0;
      while (next < n_inputs && s.ok()) {
        AddNBody<T> body{};
        body.out = zp;
        body.accumulate = next > 0;
        body.count = 0;
        for (; next < n_inputs && body.count < kAddNChunk; ++next)
          body.in[body.count++] = static_cast<const T*>(ctx->input(next).raw_data());
        s = LaunchVecLoop<N>(stream, n, vec, body, "AddNKernel");
      }
    });
    OP_REQUIRES(ctx, known, ctx->NodeError(UnsupportedType(*this, input_type(0))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

}  // namespace

// Broadcasting binary ops.
REGISTER_CUDA_KERNEL("Add", CudaBinaryOp<AddF>);
REGISTER_CUDA_KERNEL("AddV2", CudaBinaryOp<AddF>);
REGISTER_CUDA_KERNEL("Sub", CudaBinaryOp<SubF>);
REGISTER_CUDA_KERNEL("Mul", CudaBinaryOp<MulF>);
REGISTER_CUDA_KERNEL("Div", CudaBinaryOp<DivF>);
REGISTER_CUDA_KERNEL("RealDiv", CudaBinaryOp<DivF>);
REGISTER_CUDA_KERNEL("Maximum", CudaBinaryOp<MaximumF>);
REGISTER_CUDA_KERNEL("Minimum", CudaBinaryOp<MinimumF>);
REGISTER_CUDA_KERNEL("SquaredDifference", CudaBinaryOp<SquaredDifferenceF>);
REGISTER_CUDA_KERNEL("Pow", CudaBinaryOp<PowF>);

REGISTER_CUDA_KERNEL("AddN", CudaAddNOp);

}  // namespace af::gpu
