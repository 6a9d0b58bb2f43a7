// Shape, ShapeN, Size and Rank: a tensor's metadata as int tensors. They
// read only the input's shape, so they take inputs of every type.
#include <limits>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

template <typename OutT>
Status FitsOutput(OpKernelContext* ctx, int64_t value, std::string_view what) {
  if constexpr (std::is_same_v<OutT, int32_t>) {
    if (value > std::numeric_limits<int32_t>::max())
      return ctx->NodeError(errors::InvalidArgument(
          what, " is ", value, ", which does not fit the 32-bit output type; use out_type=int64"));
  }
  return Status::OK();
}

template <typename OutT>
Status WriteShape(OpKernelContext* ctx, int output, const TensorShape& shape) {
  Tensor* out = nullptr;
  AF_RETURN_IF_ERROR(ctx->allocate_output(output, TensorShape{shape.dims()}, &out));
  OutT* p = out->data<OutT>();
  for (int d = 0; d < shape.dims(); ++d) {
    AF_RETURN_IF_ERROR(FitsOutput<OutT>(ctx, shape.dim_size(d), "dim " + std::to_string(d)));
    p[d] = static_cast<OutT>(shape.dim_size(d));
  }
  return Status::OK();
}

template <typename OutT>
class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, WriteShape<OutT>(ctx, 0, ctx->input(0).shape()));
  }
};

template <typename OutT>
class ShapeNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i)
      OP_REQUIRES_OK(ctx, WriteShape<OutT>(ctx, i, ctx->input(i).shape()));
  }
};

template <typename OutT>
class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->input(0).NumElements();
    OP_REQUIRES_OK(ctx, FitsOutput<OutT>(ctx, n, "the number of elements"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<OutT>() = static_cast<OutT>(n);
  }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<int32_t>() = ctx->input(0).dims();
  }
};

}  // namespace

// Outputs are shapes: kept in host memory by future GPU kernels too.
#define AF_REGISTER_SHAPE_KERNELS(OutT)                         \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("Shape")             \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<OutT>("out_type") \
                              .HostMemory("output"),            \
                          ShapeOp<OutT>);                       \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("ShapeN")            \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<OutT>("out_type") \
                              .HostMemory("output"),            \
                          ShapeNOp<OutT>);                      \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("Size")              \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<OutT>("out_type") \
                              .HostMemory("output"),            \
                          SizeOp<OutT>)
AF_REGISTER_SHAPE_KERNELS(int32_t);
AF_REGISTER_SHAPE_KERNELS(int64_t);
#undef AF_REGISTER_SHAPE_KERNELS

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Rank").Device(DEVICE_CPU).HostMemory("output"), RankOp);

}  // namespace af
