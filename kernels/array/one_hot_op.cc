// OneHot: indices of shape S become a tensor of S with a depth dim inserted
// at `axis`, holding on_value where the position along that dim equals the
// index and off_value elsewhere. Indices outside [0, depth) give a row of
// off_value.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

template <typename S, typename TI>
void OneHotLoop(const TI* indices, int64_t prefix, int64_t depth, int64_t suffix, const S& on,
                const S& off, S* out) {
  FillElements(out, off, prefix * depth * suffix);
  for (int64_t p = 0; p < prefix; ++p) {
    for (int64_t s = 0; s < suffix; ++s) {
      const auto index = static_cast<int64_t>(indices[p * suffix + s]);
      if (index >= 0 && index < depth) out[(p * depth + index) * suffix + s] = on;
    }
  }
}

template <typename TI>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    int64_t depth = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, 1, "depth", &depth));
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    OP_REQUIRES(ctx, on.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("on_value must be a scalar, but got: ",
                                                       on.shape().DebugString())));
    OP_REQUIRES(ctx, off.dims() == 0,
                ctx->NodeError(errors::InvalidArgument("off_value must be a scalar, but got: ",
                                                       off.shape().DebugString())));
    OP_REQUIRES(
        ctx, depth >= 0,
        ctx->NodeError(errors::InvalidArgument("depth must be non-negative, got: ", depth)));
    const int rank = indices.dims();
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
                ctx->NodeError(errors::InvalidArgument("Expected axis to be -1 or between [0, ",
                                                       rank + 1, ").  But received: ", axis_)));
    const int a = axis_ == -1 ? rank : static_cast<int>(axis_);
    TensorShape out_shape = indices.shape();
    out_shape.InsertDim(a, depth);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t prefix = DimProduct(indices.shape(), 0, a);
    const int64_t suffix = DimProduct(indices.shape(), a, rank);
    VisitElementStorage(on.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      OneHotLoop(indices.data<TI>(), prefix, depth, suffix, StorageData<S>(on)[0],
                 StorageData<S>(off)[0], StorageData<S>(*out));
    });
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

#define AF_REGISTER_ONE_HOT(TI)                                    \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("OneHot")               \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<TI>("TI")            \
                              .TypeConstraint("T", MovableTypes()) \
                              .HostMemory("depth")                 \
                              .Expensive(),                        \
                          OneHotOp<TI>)
AF_REGISTER_ONE_HOT(uint8_t);
AF_REGISTER_ONE_HOT(int8_t);
AF_REGISTER_ONE_HOT(int32_t);
AF_REGISTER_ONE_HOT(int64_t);
#undef AF_REGISTER_ONE_HOT

}  // namespace af
