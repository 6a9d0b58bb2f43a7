// Gather (axis 0) and GatherV2 (axis input, batch_dims).
//
// params is viewed as [batch, outer, N, inner] (batch: the first batch_dims
// dims, outer: the dims up to the axis, N: the axis, inner: the rest) and
// indices as [batch, K]; output [batch, outer, K, inner] copies row
// indices[b, k] of each [N, inner] block. Indices are checked as they are
// used; the first bad one (in indices' order) is reported.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

struct GatherLayout {
  int64_t batch, outer, n, inner, k;
};

template <typename S, typename Index>
Status GatherLoop(OpKernelContext* ctx, const Tensor& params, const Tensor& indices,
                  const GatherLayout& g, S* out) {
  const S* p = StorageData<S>(params);
  const Index* idx = indices.data<Index>();
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t o = 0; o < g.outer; ++o) {
      const S* block = p + (b * g.outer + o) * g.n * g.inner;
      for (int64_t k = 0; k < g.k; ++k) {
        const int64_t flat = b * g.k + k;
        const int64_t row = static_cast<int64_t>(idx[flat]);
        if (row < 0 || row >= g.n)
          return ctx->NodeError(errors::InvalidArgument("indices",
                                                        FlatIndexString(indices.shape(), flat),
                                                        " = ", row, " is not in [0, ", g.n, ")"));
        if (g.inner == 1)
          *out = block[row];
        else
          CopyElements(out, block + row * g.inner, g.inner);
        out += g.inner;
      }
    }
  }
  return Status::OK();
}

class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    has_axis_input_ = ctx->num_inputs() == 3;
    if (ctx->HasAttr("batch_dims")) OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    int64_t axis = 0;
    if (has_axis_input_) OP_REQUIRES_OK(ctx, IntScalarInput(ctx, 2, "axis", &axis));
    const int rank = params.dims();
    OP_REQUIRES(
        ctx, rank >= 1,
        ctx->NodeError(errors::InvalidArgument("params must be at least 1 dimensional, got shape ",
                                               params.shape().DebugString())));
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                ctx->NodeError(errors::InvalidArgument("Expected axis in the range [", -rank, ", ",
                                                       rank, "), but got ", axis)));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    int64_t batch_dims = batch_dims_;
    if (batch_dims < 0) batch_dims += indices.dims();
    OP_REQUIRES(
        ctx, batch_dims >= 0 && batch_dims <= indices.dims(),
        ctx->NodeError(errors::InvalidArgument("batch_dims (", batch_dims_, ") must be in range [",
                                               -indices.dims(), ", ", indices.dims(), "]")));
    const int bd = static_cast<int>(batch_dims);
    OP_REQUIRES(ctx, bd <= a,
                ctx->NodeError(errors::InvalidArgument(
                    "batch_dims (", bd, ") must be less than or equal to axis (", a, ")")));
    for (int d = 0; d < bd; ++d)
      OP_REQUIRES(ctx, params.dim_size(d) == indices.dim_size(d),
                  ctx->NodeError(errors::InvalidArgument(
                      "params.shape[", d, "]: ", params.dim_size(d),
                      " should be equal to indices.shape[", d, "]: ", indices.dim_size(d))));

    TensorShape out_shape;
    for (int d = 0; d < a; ++d) out_shape.AddDim(params.dim_size(d));
    for (int d = bd; d < indices.dims(); ++d) out_shape.AddDim(indices.dim_size(d));
    for (int d = a + 1; d < rank; ++d) out_shape.AddDim(params.dim_size(d));
    const GatherLayout g{DimProduct(params.shape(), 0, bd), DimProduct(params.shape(), bd, a),
                         params.dim_size(a), DimProduct(params.shape(), a + 1, rank),
                         DimProduct(indices.shape(), bd, indices.dims())};
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // Rows of 0 elements (inner 0) still have their indices checked; with
    // no (batch, outer, k) position there is nothing to check or copy.
    if (g.batch * g.outer * g.k == 0) return;
    Status status;
    VisitElementStorage(params.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      status = indices.dtype() == DT_INT32
                   ? GatherLoop<S, int32_t>(ctx, params, indices, g, StorageData<S>(*out))
                   : GatherLoop<S, int64_t>(ctx, params, indices, g, StorageData<S>(*out));
    });
    OP_REQUIRES_OK(ctx, status);
  }

 private:
  bool has_axis_input_ = false;
  int64_t batch_dims_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Gather")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", MovableTypes())
                            .Expensive(),
                        GatherOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("GatherV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", MovableTypes())
                            .HostMemory("axis")
                            .Expensive(),
                        GatherOp);

}  // namespace af
