// DynamicStitch and ParallelDynamicStitch: merged[indices[m][i...], ...] =
// data[m][i..., ...], merged's first dim being the largest index + 1.
//
// Inputs are applied in order (m, then i), so for a duplicate index the
// last one wins: TensorFlow's rule for DynamicStitch. ParallelDynamicStitch
// leaves the winner unspecified, so the same kernel is a valid (and
// deterministic) implementation of it. Rows no index names are zeros;
// TensorFlow leaves them undefined, and zeros keep a step reproducible.
#include <algorithm>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

// Copies every data row to its index and zero-fills the rows nobody named.
// `written` is one byte per output row rather than a full zero-fill pass,
// since in the common use (stitching DynamicPartition's shards back) every
// row is written and a fill of the whole output would be wasted traffic.
template <typename S>
void StitchRows(OpKernelContext* ctx, int n, int64_t inner, int64_t rows, Tensor* merged) {
  S* out = StorageData<S>(*merged);
  std::vector<char> written(static_cast<size_t>(rows), 0);
  for (int m = 0; m < n; ++m) {
    const Tensor& indices = ctx->input(m);
    const int32_t* idx = indices.data<int32_t>();
    const S* in = StorageData<S>(ctx->input(n + m));
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      CopyElements(out + idx[i] * inner, in + i * inner, inner);
      written[static_cast<size_t>(idx[i])] = 1;
    }
  }
  for (int64_t r = 0; r < rows; ++r)
    if (!written[static_cast<size_t>(r)]) FillElements(out + r * inner, S{}, inner);
}

class DynamicStitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 2;
    const Tensor& indices0 = ctx->input(0);
    const Tensor& data0 = ctx->input(n);
    int64_t max_index = -1;
    for (int m = 0; m < n; ++m) {
      const Tensor& indices = ctx->input(m);
      const Tensor& data = ctx->input(n + m);
      OP_REQUIRES_OK(ctx, CheckShapes(ctx, m, indices0, data0, indices, data));
      const int32_t* idx = indices.data<int32_t>();
      for (int64_t i = 0; i < indices.NumElements(); ++i) {
        OP_REQUIRES(ctx, idx[i] >= 0,
                    ctx->NodeError(errors::InvalidArgument(
                        "indices[", m, "]", FlatIndexString(indices.shape(), i), " = ", idx[i],
                        " is out of range: indices must be non-negative")));
        max_index = std::max<int64_t>(max_index, idx[i]);
      }
    }
    const int64_t rows = max_index + 1;
    TensorShape shape{rows};
    for (int d = indices0.dims(); d < data0.dims(); ++d) shape.AddDim(data0.dim_size(d));
    Tensor* merged = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &merged));
    const int64_t inner = DimProduct(data0.shape(), indices0.dims(), data0.dims());
    if (rows == 0 || inner == 0) return;
    VisitElementStorage(data0.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      StitchRows<S>(ctx, n, inner, rows, merged);
    });
  }

 private:
  // data[m] must start with indices[m]'s shape, and what follows must be
  // the same for every m (it is the row shape of merged).
  static Status CheckShapes(OpKernelContext* ctx, int m, const Tensor& indices0,
                            const Tensor& data0, const Tensor& indices, const Tensor& data) {
    bool prefix = indices.dims() <= data.dims();
    for (int d = 0; prefix && d < indices.dims(); ++d)
      prefix = indices.dim_size(d) == data.dim_size(d);
    if (!prefix)
      return ctx->NodeError(errors::InvalidArgument(
          "data[", m, "].shape = ", data.shape().DebugString(), " does not start with indices[", m,
          "].shape = ", indices.shape().DebugString()));
    bool same_rows = data.dims() - indices.dims() == data0.dims() - indices0.dims();
    for (int d = 0; same_rows && d < data.dims() - indices.dims(); ++d)
      same_rows = data.dim_size(indices.dims() + d) == data0.dim_size(indices0.dims() + d);
    if (!same_rows)
      return ctx->NodeError(errors::InvalidArgument(
          "Need data[0].shape[", indices0.dims(), ":] = data[", m, "].shape[", indices.dims(),
          ":], got data[0].shape = ", data0.shape().DebugString(), ", data[", m, "].shape = ",
          data.shape().DebugString(), ", indices[0].shape = ", indices0.shape().DebugString(),
          ", indices[", m, "].shape = ", indices.shape().DebugString()));
    return Status::OK();
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("DynamicStitch")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .Expensive(),
                        DynamicStitchOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ParallelDynamicStitch")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .Expensive(),
                        DynamicStitchOp);

}  // namespace af
