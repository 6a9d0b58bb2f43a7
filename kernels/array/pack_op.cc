// Pack: N tensors of one shape stacked along a new axis. Each input is
// viewed as [outer, inner] (outer: the dims before the axis), so Pack is
// Concat's row loop over inputs of equal inner size.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/concat_rows.h"

namespace af {
namespace {

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    const int out_rank = first.dims() + 1;
    OP_REQUIRES(ctx, axis_ >= -out_rank && axis_ < out_rank,
                ctx->NodeError(errors::InvalidArgument("axis = ", axis_, " not in [", -out_rank,
                                                       ", ", out_rank, ")")));
    const int a = static_cast<int>(axis_ < 0 ? axis_ + out_rank : axis_);
    for (int i = 1; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(
          ctx, t.shape() == first.shape(),
          ctx->NodeError(errors::InvalidArgument(
              "Shapes of all inputs must match: values[0].shape = ", first.shape().DebugString(),
              " != values[", i, "].shape = ", t.shape().DebugString())));
    }
    TensorShape out_shape = first.shape();
    out_shape.InsertDim(a, n);
    if (n == 1) {  // a new size-1 dim: the same buffer
      Tensor out;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, first, out_shape, &out));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t outer = DimProduct(first.shape(), 0, a);
    VisitElementStorage(first.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      ConcatRows<S>(ctx, 0, n, outer, StorageData<S>(*out));
    });
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("Pack").Device(DEVICE_CPU).TypeConstraint("T", MovableTypes()).Expensive(),
    PackOp);

}  // namespace af
