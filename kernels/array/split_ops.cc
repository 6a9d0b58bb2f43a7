// Split, SplitV and Unpack: consecutive pieces of the input along an axis.
//
// When every dim before the axis is 1 (axis 0, typically) each piece is one
// contiguous run of the input, and the output shares the input's buffer
// (Tensor::Slice), as TensorFlow does; otherwise each piece is copied as
// [outer, piece] rows. Shared pieces need not be 64-byte aligned: kernels
// here never assume aligned inputs.
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {
namespace {

// Sets output `output` to input[..., start : start + size, ...] along
// axis `a`, under `out_shape` (same element count).
Status EmitPiece(OpKernelContext* ctx, const Tensor& in, int a, int64_t start, int64_t size,
                 const TensorShape& out_shape, int output) {
  const int64_t outer = DimProduct(in.shape(), 0, a);
  const int64_t inner = DimProduct(in.shape(), a + 1, in.dims());
  const int64_t dim = in.dim_size(a);
  if (size == dim) {  // the whole input
    Tensor piece;
    AF_RETURN_IF_ERROR(ShareAs(ctx, in, out_shape, &piece));
    ctx->set_output(output, std::move(piece));
    return Status::OK();
  }
  if (outer == 1) {
    Tensor rows, piece;
    AF_RETURN_IF_ERROR(ShareAs(ctx, in, TensorShape{outer * dim, inner}, &rows));
    AF_RETURN_IF_ERROR(ShareAs(ctx, rows.Slice(start, start + size), out_shape, &piece));
    ctx->set_output(output, std::move(piece));
    return Status::OK();
  }
  Tensor* out = nullptr;
  AF_RETURN_IF_ERROR(ctx->allocate_output(output, out_shape, &out));
  if (out_shape.num_elements() == 0) return Status::OK();
  VisitElementStorage(in.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    StridedToDense(StorageData<S>(in) + start * inner, DimVector{outer, size * inner},
                   DimVector{dim * inner, 1}, StorageData<S>(*out));
  });
  return Status::OK();
}

Status SplitAxis(OpKernelContext* ctx, const Tensor& in, int64_t axis, int* a) {
  const int rank = in.dims();
  if (axis < -rank || axis >= rank)
    return ctx->NodeError(errors::InvalidArgument("-", rank, " <= split_dim < ", rank, " but got ",
                                                  axis, " (input shape ", in.shape().DebugString(),
                                                  ")"));
  *a = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, 0, "split_dim", &axis));
    const Tensor& in = ctx->input(1);
    int a = 0;
    OP_REQUIRES_OK(ctx, SplitAxis(ctx, in, axis, &a));
    const int num = ctx->num_outputs();
    const int64_t dim = in.dim_size(a);
    OP_REQUIRES(ctx, dim % num == 0,
                ctx->NodeError(errors::InvalidArgument(
                    "Number of ways to split should evenly divide the split dimension, but got "
                    "split_dim ",
                    a, " (size = ", dim, ") and num_split ", num)));
    const int64_t size = dim / num;
    TensorShape piece = in.shape();
    piece.set_dim(a, size);
    for (int i = 0; i < num; ++i)
      OP_REQUIRES_OK(ctx, EmitPiece(ctx, in, a, i * size, size, piece, i));
  }
};

class SplitVOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector sizes;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "size_splits", &sizes));
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, 2, "split_dim", &axis));
    int a = 0;
    OP_REQUIRES_OK(ctx, SplitAxis(ctx, in, axis, &a));
    const int num = ctx->num_outputs();
    OP_REQUIRES(
        ctx, sizes.size() == num,
        ctx->NodeError(errors::InvalidArgument(
            "Length of size_splits should be equal to num_outputs: ", sizes.size(), " vs. ", num)));
    const int64_t dim = in.dim_size(a);
    int missing = -1;
    int64_t sum = 0;
    for (int i = 0; i < num; ++i) {
      if (sizes[i] == -1) {
        OP_REQUIRES(ctx, missing < 0,
                    ctx->NodeError(errors::InvalidArgument(
                        "There can only be one -1 in the input, found at ", missing, " and ", i)));
        missing = i;
        continue;
      }
      OP_REQUIRES(ctx, sizes[i] >= 0,
                  ctx->NodeError(errors::InvalidArgument("size_splits[", i, "] = ", sizes[i],
                                                         " must be >= -1")));
      sum += sizes[i];
    }
    if (missing >= 0) {
      OP_REQUIRES(ctx, sum <= dim,
                  ctx->NodeError(errors::InvalidArgument(
                      "The specified sizes (sum ", sum, ") exceed the size of the split dimension ",
                      a, " (", dim, ")")));
      sizes[missing] = dim - sum;
    } else {
      OP_REQUIRES(ctx, sum == dim,
                  ctx->NodeError(errors::InvalidArgument(
                      "Determined shape must either match input shape along split_dim exactly "
                      "if fully specified, or be less than the size of the input along "
                      "split_dim if not fully specified.  Got: ",
                      sum, " vs. ", dim)));
    }
    int64_t start = 0;
    TensorShape piece = in.shape();
    for (int i = 0; i < num; ++i) {
      piece.set_dim(a, sizes[i]);
      OP_REQUIRES_OK(ctx, EmitPiece(ctx, in, a, start, sizes[i], piece, i));
      start += sizes[i];
    }
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                ctx->NodeError(errors::InvalidArgument("axis = ", axis_, " not in [", -rank, ", ",
                                                       rank, ")")));
    const int a = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int num = ctx->num_outputs();
    OP_REQUIRES(ctx, in.dim_size(a) == num,
                ctx->NodeError(errors::InvalidArgument("Input shape axis ", a, " must equal ", num,
                                                       ", got shape ", in.shape().DebugString())));
    TensorShape piece = in.shape();
    piece.RemoveDim(a);
    for (int i = 0; i < num; ++i) OP_REQUIRES_OK(ctx, EmitPiece(ctx, in, a, i, 1, piece, i));
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Split")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("split_dim")
                            .Expensive(),
                        SplitOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("SplitV")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("size_splits")
                            .HostMemory("split_dim")
                            .Expensive(),
                        SplitVOp);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("Unpack").Device(DEVICE_CPU).TypeConstraint("T", MovableTypes()).Expensive(),
    UnpackOp);

}  // namespace af
