// MatrixDeterminant: det of every [M, M] matrix in the batch, from an LU
// decomposition with partial pivoting (the product of U's diagonal, signed
// by the row permutation). The determinant of a 0x0 matrix is 1.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/eigen_lu.h"
#include "kernels/math/gemm.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/math/square_matrices.h"

namespace af {

namespace {

template <typename T>
class MatrixDeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    SquareMatrixBatch batch;
    OP_REQUIRES_OK(ctx, ValidateSquareMatrices(*ctx, input, &batch));
    TensorShape out_shape = input.shape();
    out_shape.RemoveDim(out_shape.dims() - 1);
    out_shape.RemoveDim(out_shape.dims() - 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t m = batch.size;
    const T* in = input.data<T>();
    T* det = out->data<T>();
    if (m == 0) {
      for (int64_t b = 0; b < batch.batches; ++b) det[b] = T(1);
      return;
    }
    ShardedFor(ctx, batch.batches, m * m * m, [=](int64_t begin, int64_t end) {
      using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
      Eigen::PartialPivLU<Matrix> lu(m);
      for (int64_t b = begin; b < end; ++b) {
        lu.compute(Eigen::Map<const RowMajorMatrix<T>>(in + b * m * m, m, m));
        det[b] = lu.determinant();
      }
    });
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("MatrixDeterminant")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Expensive(),
                        MatrixDeterminantOp<float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("MatrixDeterminant")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<double>("T")
                            .Expensive(),
                        MatrixDeterminantOp<double>);

}  // namespace af
