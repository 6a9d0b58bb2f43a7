// Pad (zeros) and PadV2 (a given constant): the output is filled with the
// constant, then the input is copied into the interior as a strided view
// of the output.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {
namespace {

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                ctx->NodeError(errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                                       paddings.shape().DebugString())));
    OP_REQUIRES(ctx, paddings.dim_size(0) == rank,
                ctx->NodeError(errors::InvalidArgument(
                    "The first dimension of paddings must be the rank of inputs",
                    paddings.shape().DebugString(), " ", in.shape().DebugString())));
    const bool has_constant = ctx->num_inputs() > 2;
    if (has_constant) {
      const Tensor& constant = ctx->input(2);
      OP_REQUIRES(ctx, constant.dims() == 0,
                  ctx->NodeError(errors::InvalidArgument("constant_values must be a scalar. Got: ",
                                                         constant.shape().DebugString())));
    }
    TensorShape out_shape;
    DimVector before;
    bool no_padding = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t b = IntElement(paddings, 2 * i), a = IntElement(paddings, 2 * i + 1);
      OP_REQUIRES(
          ctx, b >= 0 && a >= 0,
          ctx->NodeError(errors::InvalidArgument("Paddings must be non-negative: ", b, " ", a)));
      out_shape.AddDim(in.dim_size(i) + b + a);
      before.push_back(b);
      no_padding &= b == 0 && a == 0;
    }
    if (no_padding) {
      Tensor out;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &out));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) offset += before[i] * out_strides[i];
    VisitElementStorage(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      S* o = StorageData<S>(*out);
      if (has_constant) {
        FillElements(o, StorageData<S>(ctx->input(2))[0], out_shape.num_elements());
      } else if constexpr (std::is_trivially_copyable_v<S>) {
        std::memset(static_cast<void*>(o), 0, out->TotalBytes());
      }  // strings start empty
      if (in.NumElements() > 0)
        DenseToStrided(StorageData<S>(in), in.shape().dim_sizes(), out_strides, o + offset);
    });
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Pad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("paddings")
                            .Expensive(),
                        PadOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("PadV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("paddings")
                            .Expensive(),
                        PadOp);

}  // namespace af
