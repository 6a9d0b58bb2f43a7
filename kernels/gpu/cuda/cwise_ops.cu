// CUDA element-wise kernels: broadcasting binary arithmetic, unary math and
// activations, the gradient helpers of both, AddN and Cast.
//
// Every kernel is enqueued on the device's compute stream and returns at
// once. Element-wise loops move 16 bytes per thread and access (float4,
// double2, 8 halves) whenever the pointers allow it; broadcasting reuses the
// CPU kernels' plan (kernels/math/broadcast.h), which collapses the shapes
// into a few merged dims, and picks a loop from it: same shape, one scalar
// operand, a row or a column operand, or a general strided walk over up to
// eight merged dims. Half and bfloat16 compute in float.
//
// Special values follow the CPU kernels: Relu, Relu6, Maximum and Minimum
// keep NaN, Sign(NaN) is NaN, ReluGrad passes the gradient where
// features > 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/math/broadcast.h"

namespace af::gpu {
namespace {

// ---------------------------------------------------------------------------
// Types.

// Every type that lives in device memory (Cast's domain).
template <typename Fn>
bool VisitDeviceType(DataType dt, Fn&& fn) {
  switch (BaseType(dt)) {
    case DT_UINT8: fn(Tag<uint8_t>{}); return true;
    case DT_INT8: fn(Tag<int8_t>{}); return true;
    case DT_INT16: fn(Tag<int16_t>{}); return true;
    default: return VisitFloat(dt, fn);
  }
}

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

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

// Gradient helpers: (y, dy) with y the forward output.
struct SigmoidGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A y, A dy) const { return dy * (y * (A(1) - y)); }
};
struct TanhGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A y, A dy) const { return dy * (A(1) - y * y); }
};
struct SqrtGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A y, A dy) const { return (A(0.5) * dy) / y; }
};
struct RsqrtGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A y, A dy) const { return (A(-0.5) * dy) * (y * y * y); }
};
struct ReciprocalGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A y, A dy) const { return -dy * (y * y); }
};

// Activation gradients: (gradients, saved) with saved the forward input
// (Relu, Relu6, Softplus) or output (Elu, Selu).
struct ReluGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A g, A x) const { return x > A(0) ? g : A(0); }
};
struct Relu6GradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A g, A x) const {
    return (x > A(0) && x < A(6)) ? g : A(0);
  }
};
struct EluGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A g, A y) const { return y < A(0) ? g * (y + A(1)) : g; }
};
struct SeluGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A g, A y) const {
    return y < A(0) ? g * (y + A(kSeluScale * kSeluAlpha)) : g * A(kSeluScale);
  }
};
struct SoftplusGradF {
  template <typename A>
  __device__ __forceinline__ A operator()(A g, A x) const { return g / (A(1) + DExp(-x)); }
};

// Unary.
struct NegF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return -a; }
};
struct SquareF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return a * a; }
};
struct AbsF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return DAbs(a); }
};
struct SignF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const {
    if (a != a) return a;
    return static_cast<A>((A(0) < a) - (a < A(0)));
  }
};
struct SqrtF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return DSqrt(a); }
};
struct RsqrtF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return A(1) / DSqrt(a); }
};
struct ExpF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return DExp(a); }
};
struct LogF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return DLog(a); }
};
struct Log1pF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return DLog1p(a); }
};
struct TanhF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return DTanh(a); }
};
struct SigmoidF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const {
    if (a < A(0)) {  // e^a / (1 + e^a): no overflow, keeps the small tail
      const A e = DExp(a);
      return e / (A(1) + e);
    }
    return A(1) / (A(1) + DExp(-a));
  }
};
struct ReciprocalF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return A(1) / a; }
};
struct ReluF {
  // NaN stays NaN (the comparison is false).
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return a < A(0) ? A(0) : a; }
};
struct Relu6F {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const {
    const A m = a < A(0) ? A(0) : a;  // std::max(a, 0): NaN kept
    return A(6) < m ? A(6) : m;       // std::min(m, 6): NaN kept
  }
};
struct EluF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const { return a < A(0) ? DExpm1(a) : a; }
};
struct SeluF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const {
    return a < A(0) ? A(kSeluScale * kSeluAlpha) * DExpm1(a) : A(kSeluScale) * a;
  }
};
struct SoftplusF {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const {
    return a > A(0) ? a + DLog1p(DExp(-a)) : DLog1p(DExp(a));
  }
};

// ---------------------------------------------------------------------------
// The vectorized element-wise loop: body.Apply<N>(e) handles elements
// [e, e + N). Vectors first (grid-stride), then the < N tail elements.

template <int N, typename Body>
__global__ void __launch_bounds__(kThreads) VecLoopKernel(int64_t n, Body body) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nvec = n / N;
  for (int64_t i = tid; i < nvec; i += stride) body.template Apply<N>(i * N);
  if constexpr (N > 1) {
    for (int64_t e = nvec * N + tid; e < n; e += stride) body.template Apply<1>(e);
  }
}

// Runs `body` over n elements, N at a time when `vectorize`.
template <int N, typename Body>
Status LaunchVecLoop(cudaStream_t stream, int64_t n, bool vectorize, const Body& body,
                     const char* name) {
  if (n <= 0) return Status::OK();
  if (N > 1 && vectorize) {
    const int64_t units = n / N > 0 ? n / N : 1;
    VecLoopKernel<N, Body><<<GridFor(units, kThreads), kThreads, 0, stream>>>(n, body);
  } else {
    VecLoopKernel<1, Body><<<GridFor(n, kThreads), kThreads, 0, stream>>>(n, body);
  }
  return CheckLaunch(name);
}

// ---------------------------------------------------------------------------
// Bodies.

template <typename T, typename F>
struct UnaryBody {
  const T* x;
  T* y;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Vec<T, N> a = LoadVec<N>(x + e);
    Vec<T, N> r;
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k])));
    StoreVec<N>(y + e, r);
  }
};

// z = f(x, y), both full.
template <typename T, typename F>
struct BinaryBody {
  const T* x;
  const T* y;
  T* z;
  F f;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Vec<T, N> a = LoadVec<N>(x + e);
    const Vec<T, N> b = LoadVec<N>(y + e);
    Vec<T, N> r;
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = FromAcc<T>(f(ToAcc(a.v[k]), ToAcc(b.v[k])));
    StoreVec<N>(z + e, r);
  }
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

Status UnsupportedType(const OpKernel& k, DataType dt) {
  return errors::Unimplemented(k.type_string(), " has no GPU kernel for ", DataTypeString(dt));
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

template <typename F>
class CudaUnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    if (n == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr int N = kVecWidth<T>;
      const T* xp = static_cast<const T*>(x.raw_data());
      T* yp = static_cast<T*>(out->raw_data());
      const bool vec = Aligned(xp, sizeof(T) * N) && Aligned(yp, sizeof(T) * N);
      s = LaunchVecLoop<N>(stream, n, vec, UnaryBody<T, F>{xp, yp, F()}, "UnaryKernel");
    });
    OP_REQUIRES(ctx, known, ctx->NodeError(UnsupportedType(*this, input_type(0))));
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }
};

// z = f(input0, input1) over inputs of the same size, shaped like input 0.
// kSameShape: the activation gradients' check (identical shapes) instead
// of the gradient helpers' (same element count).
template <typename F, bool kSameShape>
class CudaSameSizeBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if constexpr (kSameShape) {
      OP_REQUIRES(ctx, a.shape() == b.shape(),
                  ctx->NodeError(errors::InvalidArgument(
                      "Inputs to operation ", name(), " of type ", type_string(),
                      " must have the same size and shape.  Input 0: ", a.shape().DebugString(),
                      " != input 1: ", b.shape().DebugString())));
    } else {
      OP_REQUIRES(ctx, a.NumElements() == b.NumElements(),
                  ctx->NodeError(errors::InvalidArgument(
                      "The two arguments to a cwise op must have same number of elements, got ",
                      a.NumElements(), " and ", b.NumElements(), " (shapes ",
                      a.shape().DebugString(), " and ", b.shape().DebugString(), ")")));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    const int64_t n = a.NumElements();
    if (n == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    const bool known = VisitFloat(input_type(0), [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr int N = kVecWidth<T>;
      const T* ap = static_cast<const T*>(a.raw_data());
      const T* bp = static_cast<const T*>(b.raw_data());
      T* zp = static_cast<T*>(out->raw_data());
      const bool vec = Aligned(ap, sizeof(T) * N) && Aligned(bp, sizeof(T) * N) &&
                       Aligned(zp, sizeof(T) * N);
      s = LaunchVecLoop<N>(stream, n, vec, BinaryBody<T, F>{ap, bp, zp, F()}, "GradKernel");
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

// ---------------------------------------------------------------------------
// Cast among the device types, with the CPU's conversions
// (kernels/math/cast_functors.h): float -> small integer truncates toward
// zero through int32 (NaN and out-of-range give INT32_MIN's low bits),
// integer narrowing wraps, 16-bit floats round to nearest even from float
// (double goes through float), and Truncate drops mantissa bits first.

template <typename T>
constexpr bool kHalfLike = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
constexpr bool kFloating = std::is_floating_point_v<T> || kHalfLike<T>;

template <typename T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, double>) return 52;
  if constexpr (std::is_same_v<T, float>) return 23;
  if constexpr (std::is_same_v<T, __half>) return 10;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return 7;
  return 0;
}

template <typename T>
__device__ __forceinline__ auto BitsOf(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return static_cast<uint64_t>(__double_as_longlong(v));
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<uint32_t>(__float_as_uint(v));
  } else if constexpr (std::is_same_v<T, __half>) {
    return static_cast<uint16_t>(__half_as_ushort(v));
  } else {
    return static_cast<uint16_t>(__bfloat16_as_ushort(v));
  }
}
template <typename T, typename B>
__device__ __forceinline__ T FromBits(B b) {
  if constexpr (std::is_same_v<T, double>) {
    return __longlong_as_double(static_cast<long long>(b));
  } else if constexpr (std::is_same_v<T, float>) {
    return __uint_as_float(static_cast<unsigned>(b));
  } else if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(static_cast<unsigned short>(b));
  } else {
    return __ushort_as_bfloat16(static_cast<unsigned short>(b));
  }
}

template <typename Dst, typename Src>
__device__ __forceinline__ Src TruncateMantissa(Src v) {
  constexpr int drop = MantissaBits<Src>() - MantissaBits<Dst>();
  if constexpr (drop <= 0) {
    return v;
  } else {
    using B = decltype(BitsOf(v));
    const B all = static_cast<B>(~B{0});
    const B sign = static_cast<B>(all ^ static_cast<B>(all >> 1));
    const B mantissa = static_cast<B>((B{1} << MantissaBits<Src>()) - 1);
    const B exponent = static_cast<B>(all & ~sign & ~mantissa);
    const B mask = static_cast<B>(~((B{1} << drop) - 1));
    const B bits = BitsOf(v);
    const bool is_nan = static_cast<B>(bits & ~sign) > exponent;
    return FromBits<Src>(is_nan ? bits : static_cast<B>(bits & mask));
  }
}

template <typename T>
__device__ __forceinline__ auto Widen(T v) {
  if constexpr (kHalfLike<T>) {
    return ToAcc(v);
  } else {
    return v;
  }
}

template <typename I, typename F>
__device__ __forceinline__ I FloatToSmallInt(F v) {
  if (!(v >= F(-2147483648.0) && v < F(2147483648.0)))
    return static_cast<I>(static_cast<int32_t>(INT32_MIN));
  return static_cast<I>(static_cast<int32_t>(v));
}

template <typename Dst, typename Src>
__device__ __forceinline__ Dst Convert(Src v) {
  const auto w = Widen(v);
  using W = decltype(w);
  if constexpr (std::is_same_v<Dst, __half>) {
    return __float2half_rn(static_cast<float>(w));
  } else if constexpr (std::is_same_v<Dst, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(w));
  } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<W>) {
    return FloatToSmallInt<Dst>(w);
  } else {
    return static_cast<Dst>(w);
  }
}

template <typename Src, typename Dst>
struct CastBody {
  const Src* x;
  Dst* y;
  bool truncate;
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e) const {
    const Vec<Src, N> a = LoadVec<N>(x + e);
    Vec<Dst, N> r;
    if constexpr (kFloating<Src> && kFloating<Dst>) {
      if (truncate) {
#pragma unroll
        for (int k = 0; k < N; ++k) r.v[k] = Convert<Dst>(TruncateMantissa<Dst>(a.v[k]));
        StoreVec<N>(y + e, r);
        return;
      }
    }
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = Convert<Dst>(a.v[k]);
    StoreVec<N>(y + e, r);
  }
};

class CudaCastOp : public OpKernel {
 public:
  explicit CudaCastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    bool src_ok = VisitDeviceType(src_, [](auto) {});
    bool dst_ok = VisitDeviceType(dst_, [](auto) {});
    OP_REQUIRES(ctx, src_ == dst_ || (src_ok && dst_ok),
                errors::Unimplemented("Cast ", DataTypeString(src_), " to ",
                                      DataTypeString(dst_), " is not supported on GPU"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    if (n == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    VisitDeviceType(src_, [&](auto src_tag) {
      using Src = typename decltype(src_tag)::type;
      VisitDeviceType(dst_, [&](auto dst_tag) {
        using Dst = typename decltype(dst_tag)::type;
        constexpr int N = 4;
        const Src* xp = static_cast<const Src*>(x.raw_data());
        Dst* yp = static_cast<Dst*>(out->raw_data());
        const bool vec = Aligned(xp, sizeof(Src) * N) && Aligned(yp, sizeof(Dst) * N);
        s = LaunchVecLoop<N>(stream, n, vec, CastBody<Src, Dst>{xp, yp, truncate_}, "CastKernel");
      });
    });
    OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
  bool truncate_ = false;
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

// Unary math and activations.
REGISTER_CUDA_KERNEL("Neg", CudaUnaryOp<NegF>);
REGISTER_CUDA_KERNEL("Square", CudaUnaryOp<SquareF>);
REGISTER_CUDA_KERNEL("Abs", CudaUnaryOp<AbsF>);
REGISTER_CUDA_KERNEL("Sign", CudaUnaryOp<SignF>);
REGISTER_CUDA_KERNEL("Sqrt", CudaUnaryOp<SqrtF>);
REGISTER_CUDA_KERNEL("Rsqrt", CudaUnaryOp<RsqrtF>);
REGISTER_CUDA_KERNEL("Exp", CudaUnaryOp<ExpF>);
REGISTER_CUDA_KERNEL("Log", CudaUnaryOp<LogF>);
REGISTER_CUDA_KERNEL("Log1p", CudaUnaryOp<Log1pF>);
REGISTER_CUDA_KERNEL("Tanh", CudaUnaryOp<TanhF>);
REGISTER_CUDA_KERNEL("Sigmoid", CudaUnaryOp<SigmoidF>);
REGISTER_CUDA_KERNEL("Reciprocal", CudaUnaryOp<ReciprocalF>);
REGISTER_CUDA_KERNEL("Inv", CudaUnaryOp<ReciprocalF>);
REGISTER_CUDA_KERNEL("Relu", CudaUnaryOp<ReluF>);
REGISTER_CUDA_KERNEL("Relu6", CudaUnaryOp<Relu6F>);
REGISTER_CUDA_KERNEL("Elu", CudaUnaryOp<EluF>);
REGISTER_CUDA_KERNEL("Selu", CudaUnaryOp<SeluF>);
REGISTER_CUDA_KERNEL("Softplus", CudaUnaryOp<SoftplusF>);

// Gradient helpers (same element count) and activation gradients (same
// shape).
REGISTER_CUDA_KERNEL("SigmoidGrad", CudaSameSizeBinaryOp<SigmoidGradF, false>);
REGISTER_CUDA_KERNEL("TanhGrad", CudaSameSizeBinaryOp<TanhGradF, false>);
REGISTER_CUDA_KERNEL("SqrtGrad", CudaSameSizeBinaryOp<SqrtGradF, false>);
REGISTER_CUDA_KERNEL("RsqrtGrad", CudaSameSizeBinaryOp<RsqrtGradF, false>);
REGISTER_CUDA_KERNEL("ReciprocalGrad", CudaSameSizeBinaryOp<ReciprocalGradF, false>);
REGISTER_CUDA_KERNEL("InvGrad", CudaSameSizeBinaryOp<ReciprocalGradF, false>);
REGISTER_CUDA_KERNEL("ReluGrad", CudaSameSizeBinaryOp<ReluGradF, true>);
REGISTER_CUDA_KERNEL("Relu6Grad", CudaSameSizeBinaryOp<Relu6GradF, true>);
REGISTER_CUDA_KERNEL("EluGrad", CudaSameSizeBinaryOp<EluGradF, true>);
REGISTER_CUDA_KERNEL("SeluGrad", CudaSameSizeBinaryOp<SeluGradF, true>);
REGISTER_CUDA_KERNEL("SoftplusGrad", CudaSameSizeBinaryOp<SoftplusGradF, true>);

REGISTER_CUDA_KERNEL("AddN", CudaAddNOp);
REGISTER_CUDA_KERNEL("Cast", CudaCastOp);

}  // namespace af::gpu
