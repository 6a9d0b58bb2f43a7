// BroadcastTo: the input repeated along dims where it has size 1 (or that
// it lacks), NumPy style. A strided copy with stride 0 along those dims.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"

namespace af {
namespace {

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector dims;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "shape", &dims));
    TensorShape target;
    OP_REQUIRES_OK(ctx, ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), &target)));
    const int rank = target.dims(), offset = rank - in.dims();
    OP_REQUIRES(ctx, offset >= 0,
                ctx->NodeError(errors::InvalidArgument(
                    "Rank of input (", in.dims(),
                    ") must be no greater than rank of output shape (", rank, ").")));
    const DimVector in_strides = DenseStrides(in.shape());
    DimVector strides;
    strides.resize(rank, 0);
    for (int i = 0; i < in.dims(); ++i) {
      const int64_t have = in.dim_size(i), want = target.dim_size(offset + i);
      OP_REQUIRES(ctx, have == want || have == 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "Unable to broadcast tensor of shape ", in.shape().DebugString(),
                      " to tensor of shape ", target.DebugString())));
      strides[offset + i] = have == 1 ? 0 : in_strides[i];
    }
    if (target == in.shape()) {
      Tensor out;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, target, &out));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, target, &out));
    if (target.num_elements() == 0) return;
    VisitElementStorage(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      StridedToDense(StorageData<S>(in), target.dim_sizes(), strides, StorageData<S>(*out));
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
