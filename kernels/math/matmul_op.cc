// MatMul: C = op(A) * op(B) for 2-D A and B, op optionally transposing.
// float goes to oneDNN's sgemm; double and the integer types use Eigen's
// dense product on mapped row-major buffers.
#include <algorithm>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/gemm.h"
#include "kernels/math/matmul_shape.h"

namespace af {

namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    MatMulShape shape;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(MatMulShapes(a, b, transpose_a_, transpose_b_, &shape)));
    const int64_t m = shape.m, k = shape.k, n = shape.n;

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape.output, &out));
    if (m == 0 || n == 0) return;
    T* c = out->data<T>();
    if (k == 0) {  // an empty sum
      std::fill(c, c + m * n, T(0));
      return;
    }
    Status s = Gemm(transpose_a_, transpose_b_, m, n, k, a.data<T>(), b.data<T>(), c);
    OP_REQUIRES(ctx, s.ok(), ctx->NodeError(s));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

}  // namespace

#define AF_REGISTER_MATMUL(T)                                                           \
  REGISTER_KERNEL_BUILDER(                                                              \
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(), \
      MatMulOp<T>)
AF_REGISTER_MATMUL(float);
AF_REGISTER_MATMUL(double);
AF_REGISTER_MATMUL(int32_t);
AF_REGISTER_MATMUL(int64_t);
#undef AF_REGISTER_MATMUL

}  // namespace af
