// Transpose and InvertPermutation.
//
// Transpose views the input through permuted strides and simplifies that
// view (size-1 dims dropped, dims that stay neighbours merged). What is
// left picks the loop: nothing moved (the output shares the input's
// buffer), a 2-D or batched 2-D transpose (cache-blocked), or the general
// strided copy, whose inner loop is a memcpy whenever the permutation
// keeps the last dim.
#include <algorithm>
#include <limits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/transpose_shape.h"

namespace af {
namespace {

// out (cols x rows) = transpose of in (rows x cols), in square tiles so
// that both sides stay in cache.
template <typename S>
void Transpose2D(const S* in, int64_t rows, int64_t cols, S* out) {
  constexpr int64_t kTile = sizeof(S) <= 4 ? 32 : 16;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = r0; r < r1; ++r) out[c * rows + r] = in[r * cols + c];
    }
  }
}

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TransposeShape shape;
    OP_REQUIRES_OK(ctx, ComputeTransposeShape(ctx, in, &shape));
    const TensorShape& out_shape = shape.output;
    DimVector& dims = shape.dims;
    DimVector& strides = shape.strides;
    CompressStridedBox(&dims, &strides);
    if (dims.size() == 1 && strides[0] == 1) {  // the data does not move
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    VisitElementStorage(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      Copy(StorageData<S>(in), dims, strides, StorageData<S>(*out));
    });
  }

 private:
  // `dims`/`strides`: the simplified view of the input in output order.
  template <typename S>
  static void Copy(const S* in, const DimVector& dims, const DimVector& strides, S* out) {
    const int rank = dims.size();
    if (rank == 2 && strides[1] == dims[0] && strides[0] == 1) {
      Transpose2D(in, dims[1], dims[0], out);
      return;
    }
    if (rank == 3 && strides[1] == 1 && strides[2] == dims[1] && strides[0] == dims[1] * dims[2]) {
      const int64_t matrix = dims[1] * dims[2];
      for (int64_t b = 0; b < dims[0]; ++b)
        Transpose2D(in + b * matrix, dims[2], dims[1], out + b * matrix);
      return;
    }
    StridedToDense(in, dims, strides, out);
  }
};

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                ctx->NodeError(errors::InvalidArgument("invert_permutation expects a 1D vector, "
                                                       "got shape ",
                                                       x.shape().DebugString())));
    const int64_t n = x.NumElements();
    OP_REQUIRES(
        ctx, n <= std::numeric_limits<T>::max(),
        ctx->NodeError(errors::InvalidArgument("permutation of ", n, " elements is too large")));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const T* in = x.data<T>();
    T* out = y->data<T>();
    std::fill_n(out, n, T(-1));  // -1: not yet claimed, to find duplicates
    for (int64_t i = 0; i < n; ++i) {
      const T d = in[i];
      OP_REQUIRES(
          ctx, d >= 0 && d < n,
          ctx->NodeError(errors::InvalidArgument("x[", i, "] = ", d, " is not between 0 and ", n)));
      OP_REQUIRES(ctx, out[d] == -1,
                  ctx->NodeError(errors::InvalidArgument(d, " is duplicated in the input.")));
      out[d] = static_cast<T>(i);
    }
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Transpose")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("perm")
                            .Expensive(),
                        TransposeOp);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    InvertPermutationOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    InvertPermutationOp<int64_t>);

}  // namespace af
