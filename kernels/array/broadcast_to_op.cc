// BroadcastTo: the input repeated along dims where it has size 1 (or that
// it lacks), NumPy style. A strided copy with stride 0 along those dims.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/broadcast_to_shape.h"
#include "kernels/array/strided_copy.h"

namespace af {
namespace {

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    BroadcastToShape shape;
    OP_REQUIRES_OK(ctx, ComputeBroadcastToShape(ctx, in, &shape));
    const TensorShape& target = shape.output;
    if (target == in.shape()) {
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, target));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, target, &out));
    if (target.num_elements() == 0) return;
    VisitElementStorage(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      StridedToDense(StorageData<S>(in), target.dim_sizes(), shape.strides,
                     StorageData<S>(*out));
    });
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("BroadcastTo")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("shape")
                            .Expensive(),
                        BroadcastToOp);

}  // namespace af
