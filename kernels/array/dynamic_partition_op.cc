// DynamicPartition: outputs[p] = the rows data[j..., ...] with
// partitions[j...] == p, in the order they appear. A row is the block of
// data after partitions' dims, so partitions may name single elements
// (same shape as data) or whole slices (a prefix of data's shape).
//
// Every partition value is checked before anything is allocated, so a bad
// one leaves no half-filled outputs behind; the first bad one in
// partitions' order is reported, as TensorFlow does.
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

template <typename S>
void PartitionRows(const Tensor& data, const int32_t* partitions, int64_t rows, int64_t inner,
                   const std::vector<Tensor*>& outputs) {
  const S* in = StorageData<S>(data);
  std::vector<S*> next(outputs.size());
  for (size_t p = 0; p < outputs.size(); ++p) next[p] = StorageData<S>(*outputs[p]);
  for (int64_t j = 0; j < rows; ++j) {
    S*& dst = next[static_cast<size_t>(partitions[j])];
    CopyElements(dst, in + j * inner, inner);
    dst += inner;
  }
}

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_partitions", &num_partitions_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    OP_REQUIRES(ctx, num_partitions_ >= 1,
                ctx->NodeError(errors::InvalidArgument("num_partitions must be at least 1, got ",
                                                       num_partitions_)));
    bool prefix = partitions.dims() <= data.dims();
    for (int d = 0; prefix && d < partitions.dims(); ++d)
      prefix = partitions.dim_size(d) == data.dim_size(d);
    OP_REQUIRES(ctx, prefix,
                ctx->NodeError(errors::InvalidArgument(
                    "data.shape must start with partitions.shape, got data.shape = ",
                    data.shape().DebugString(),
                    ", partitions.shape = ", partitions.shape().DebugString())));

    const int32_t* part = partitions.data<int32_t>();
    const int64_t rows = partitions.NumElements();
    std::vector<int64_t> counts(static_cast<size_t>(num_partitions_), 0);
    for (int64_t j = 0; j < rows; ++j) {
      const int64_t p = part[j];
      OP_REQUIRES(ctx, p >= 0 && p < num_partitions_,
                  ctx->NodeError(
                      errors::InvalidArgument("partitions", FlatIndexString(partitions.shape(), j),
                                              " = ", p, " is not in [0, ", num_partitions_, ")")));
      ++counts[static_cast<size_t>(p)];
    }

    std::vector<Tensor*> outputs(counts.size(), nullptr);
    for (size_t p = 0; p < counts.size(); ++p) {
      TensorShape shape{counts[p]};
      for (int d = partitions.dims(); d < data.dims(); ++d) shape.AddDim(data.dim_size(d));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(p), shape, &outputs[p]));
    }
    const int64_t inner = DimProduct(data.shape(), partitions.dims(), data.dims());
    if (rows == 0 || inner == 0) return;
    VisitElementStorage(data.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      PartitionRows<S>(data, part, rows, inner, outputs);
    });
  }

 private:
  int64_t num_partitions_ = 1;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("DynamicPartition")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .Expensive(),
                        DynamicPartitionOp);

}  // namespace af
