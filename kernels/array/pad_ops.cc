// Pad (zeros) and PadV2 (a given constant): the output is filled with the
// constant, then the input is copied into the interior as a strided view
// of the output.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/pad_shape.h"
#include "kernels/array/strided_copy.h"

namespace af {
namespace {

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    PadShape shape;
    OP_REQUIRES_OK(ctx, ComputePadShape(ctx, in, &shape));
    const TensorShape& out_shape = shape.output;
    if (shape.no_padding) {
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const bool has_constant = shape.has_constant;
    VisitElementStorage(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      S* o = StorageData<S>(*out);
      if (has_constant) {
        FillElements(o, StorageData<S>(ctx->input(2))[0], out_shape.num_elements());
      } else if constexpr (std::is_trivially_copyable_v<S>) {
        std::memset(static_cast<void*>(o), 0, out->TotalBytes());
      }  // strings start empty
      if (in.NumElements() > 0)
        DenseToStrided(StorageData<S>(in), in.shape().dim_sizes(), shape.out_strides,
                       o + shape.offset);
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
