// MatrixInverse: the inverse (or, with adjoint, the inverse of the adjoint)
// of every [M, M] matrix in the batch, by LU decomposition with partial
// pivoting. A zero pivot means the matrix is singular: INVALID_ARGUMENT
// "Input is not invertible.", as TensorFlow. Batches spread over the
// intra-op pool.
#include <atomic>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/eigen_lu.h"
#include "kernels/math/gemm.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/math/square_matrices.h"

namespace af {

namespace {

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    SquareMatrixBatch batch;
    OP_REQUIRES_OK(ctx, ValidateSquareMatrices(*ctx, input, &batch));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (out->NumElements() == 0) return;
    const int64_t m = batch.size;
    const T* in = input.data<T>();
    T* result = out->data<T>();
    const bool adjoint = adjoint_;
    std::atomic<bool> singular{false};
    ShardedFor(ctx, batch.batches, m * m * m, [&](int64_t begin, int64_t end) {
      using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
      Eigen::PartialPivLU<Matrix> lu(m);  // storage reused across the shard
      for (int64_t b = begin; b < end; ++b) {
        Eigen::Map<const RowMajorMatrix<T>> a(in + b * m * m, m, m);
        if (adjoint) {
          lu.compute(a.transpose());
        } else {
          lu.compute(a);
        }
        // Also false for a NaN pivot.
        if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0))) {
          singular.store(true, std::memory_order_relaxed);
          continue;
        }
        Eigen::Map<RowMajorMatrix<T>>(result + b * m * m, m, m) = lu.inverse();
      }
    });
    OP_REQUIRES(ctx, !singular.load(),
                ctx->NodeError(errors::InvalidArgument("Input is not invertible.")));
  }

 private:
  bool adjoint_ = false;
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("MatrixInverse").Device(DEVICE_CPU).TypeConstraint<float>("T").Expensive(),
    MatrixInverseOp<float>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("MatrixInverse").Device(DEVICE_CPU).TypeConstraint<double>("T").Expensive(),
    MatrixInverseOp<double>);

}  // namespace af
