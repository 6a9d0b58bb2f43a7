// BatchMatMul and BatchMatMulV2: out[..., :, :] = op(x[..., :, :]) *
// op(y[..., :, :]), op transposing when adj_x / adj_y is set (the adjoint of
// a real matrix). V1 needs equal batch dims; V2 broadcasts them.
//
// Each batch is one Gemm (oneDNN sgemm for float, which threads itself;
// Eigen for the rest, whose batches are spread over the intra-op pool). When
// every x batch meets the same y matrix and x is not transposed, the batches
// stack into a single tall product.
#include <algorithm>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/batch_matmul_shape.h"
#include "kernels/math/broadcast.h"
#include "kernels/math/gemm.h"
#include "kernels/math/intra_op_parallel.h"

namespace af {

namespace {

template <typename T, bool kBroadcastBatch>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BatchMatMulShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(
                            BatchMatMulShapes(x, y, adj_x_, adj_y_, kBroadcastBatch, &shape)));
    const TensorShape& y_batch = shape.y_batch;
    const BinaryBroadcast& plan = shape.plan;
    const int64_t m = shape.m, k = shape.k, n = shape.n;
    const TensorShape& out_shape = shape.output;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    T* z = out->data<T>();
    if (k == 0) {  // empty sums
      std::fill(z, z + out->NumElements(), T(0));
      return;
    }
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    const int64_t batches = plan.num_elements();
    if (y_batch.num_elements() == 1 && !adj_x_) {
      // One y for every batch: stack x's batches into one [batches*m, k] matrix.
      Status s = Gemm(false, adj_y_, batches * m, n, k, xp, yp, z);
      OP_REQUIRES(ctx, s.ok(), ctx->NodeError(s));
      return;
    }
    auto run_batch = [=, this, &plan](int64_t b) {
      int64_t xb = 0, yb = 0;
      BatchOffsets(plan, b, &xb, &yb);
      return Gemm(adj_x_, adj_y_, m, n, k, xp + xb * m * k, yp + yb * k * n, z + b * m * n);
    };
    if constexpr (std::is_same_v<T, float>) {
      for (int64_t b = 0; b < batches; ++b) {
        Status s = run_batch(b);
        OP_REQUIRES(ctx, s.ok(), ctx->NodeError(s));
      }
    } else {
      // Eigen's products cannot fail.
      ShardedFor(ctx, batches, 2 * m * n * k, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) (void)run_batch(b);
      });
    }
  }

 private:
  // The x and y batch indices feeding output batch b.
  static void BatchOffsets(const BinaryBroadcast& plan, int64_t b, int64_t* xb, int64_t* yb) {
    const DimVector& dims = plan.dims();
    int64_t x_index = 0, y_index = 0;
    for (int d = dims.size() - 1; d >= 0; --d) {
      const int64_t i = b % dims[d];
      b /= dims[d];
      x_index += i * plan.x_strides()[d];
      y_index += i * plan.y_strides()[d];
    }
    *xb = x_index;
    *yb = y_index;
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
};

}  // namespace

#define AF_REGISTER_BATCH_MATMUL(T)                                                          \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(), \
      BatchMatMulOp<T, false>);                                                              \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("BatchMatMulV2")                                  \
                              .Device(DEVICE_CPU)                                            \
                              .TypeConstraint<T>("T")                                        \
                              .Expensive(),                                                  \
                          BatchMatMulOp<T, true>)
AF_REGISTER_BATCH_MATMUL(float);
AF_REGISTER_BATCH_MATMUL(double);
AF_REGISTER_BATCH_MATMUL(int32_t);
AF_REGISTER_BATCH_MATMUL(int64_t);
#undef AF_REGISTER_BATCH_MATMUL

}  // namespace af
