// CUDA unary element-wise kernels (math and activations) and the gradient
// helpers of both, on the loop of vec_loop.cuh. Half and bfloat16 compute
// in float. Special values follow the CPU kernels: Relu and Relu6 keep NaN,
// Sign(NaN) is NaN, ReluGrad passes the gradient where features > 0.
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

namespace af::gpu {
namespace {

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

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

}  // namespace

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

}  // namespace af::gpu
