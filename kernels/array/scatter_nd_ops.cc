// ScatterNd: a zero tensor of `shape` into which updates[i...] is added at
// the slice indices[i..., :] names; repeated indices add up (GatherNd's
// gradient). A bad index row is an error naming it, or skipped with
// bad_indices_policy IGNORE.
#include <algorithm>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/nd_index.h"

namespace af {
namespace {

template <typename T, typename Index>
Status ScatterNdLoop(OpKernelContext* ctx, const Tensor& indices, const Tensor& updates,
                     const NdSlices& s, BadIndicesPolicy policy, Tensor* out) {
  const Index* idx = indices.data<Index>();
  const T* src = updates.data<T>();
  T* dst = out->data<T>();
  for (int64_t i = 0; i < s.count; ++i, src += s.slice_size) {
    const int64_t slice = NdSliceNumber(idx + i * s.depth, s);
    if (slice < 0) {
      if (policy == BadIndicesPolicy::kError)
        return BadNdIndex(ctx, indices, s, i, "output", out->shape());
      continue;
    }
    T* row = dst + slice * s.slice_size;
    for (int64_t j = 0; j < s.slice_size; ++j) row[j] += src[j];
  }
  return Status::OK();
}

template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseBadIndicesPolicy(ctx, &policy_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    DimVector dims;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 2, "shape", &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), &shape)));
    NdSlices s;
    OP_REQUIRES_OK(ctx, MakeNdSlices(ctx, indices, shape, "shape", &s));
    OP_REQUIRES_OK(ctx, CheckNdUpdatesShape(ctx, updates, s, "shape", shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::fill_n(out->data<T>(), shape.num_elements(), T{});
    if (s.count == 0) return;
    Status status;
    VisitIndexType(indices.dtype(), [&](auto index) {
      using I = typename decltype(index)::type;
      status = ScatterNdLoop<T, I>(ctx, indices, updates, s, policy_, out);
    });
    OP_REQUIRES(ctx, status.ok(), status);
  }

 private:
  BadIndicesPolicy policy_ = BadIndicesPolicy::kError;
};

}  // namespace

#define AF_REGISTER_SCATTER_ND(T)                       \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("ScatterNd") \
                              .Device(DEVICE_CPU)       \
                              .TypeConstraint<T>("T")   \
                              .HostMemory("shape")      \
                              .Expensive(),             \
                          ScatterNdOp<T>)
AF_REGISTER_SCATTER_ND(float);
AF_REGISTER_SCATTER_ND(double);
AF_REGISTER_SCATTER_ND(int32_t);
AF_REGISTER_SCATTER_ND(int64_t);
#undef AF_REGISTER_SCATTER_ND

}  // namespace af
