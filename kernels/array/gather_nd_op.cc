// GatherNd: output[i...] = params[indices[i..., :]], whole slices of params
// over its first K dims, copied as they are (any movable type). The first
// bad index row is reported; with bad_indices_policy IGNORE its slice is
// zeros instead.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/nd_index.h"

namespace af {
namespace {

template <typename S, typename Index>
Status GatherNdLoop(OpKernelContext* ctx, const Tensor& params, const Tensor& indices,
                    const NdSlices& s, BadIndicesPolicy policy, S* out) {
  const S* p = StorageData<S>(params);
  const Index* idx = indices.data<Index>();
  for (int64_t i = 0; i < s.count; ++i, out += s.slice_size) {
    const int64_t slice = NdSliceNumber(idx + i * s.depth, s);
    if (slice < 0) {
      if (policy == BadIndicesPolicy::kError)
        return BadNdIndex(ctx, indices, s, i, "params", params.shape());
      FillElements(out, S{}, s.slice_size);
      continue;
    }
    if (s.slice_size == 1)
      *out = p[slice];
    else
      CopyElements(out, p + slice * s.slice_size, s.slice_size);
  }
  return Status::OK();
}

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseBadIndicesPolicy(ctx, &policy_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() >= 1,
                ctx->NodeError(errors::InvalidArgument(
                    "params must be at least a vector, got shape ", params.shape().DebugString())));
    NdSlices s;
    OP_REQUIRES_OK(ctx, MakeNdSlices(ctx, indices, params.shape(), "params", &s));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, NdSlicesShape(s, params.shape()), &out));
    // Rows of empty slices still have their indices checked.
    if (s.count == 0) return;
    Status status;
    VisitElementStorage(params.dtype(), [&](auto storage) {
      using S = typename decltype(storage)::type;
      VisitIndexType(indices.dtype(), [&](auto index) {
        using I = typename decltype(index)::type;
        status = GatherNdLoop<S, I>(ctx, params, indices, s, policy_, StorageData<S>(*out));
      });
    });
    OP_REQUIRES(ctx, status.ok(), status);
  }

 private:
  BadIndicesPolicy policy_ = BadIndicesPolicy::kError;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("GatherNd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", MovableTypes())
                            .Expensive(),
                        GatherNdOp);

}  // namespace af
