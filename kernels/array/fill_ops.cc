// Fill, ZerosLike and OnesLike.
#include <complex>
#include <cstring>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ComputeFillShape(ctx, &shape));
    const Tensor& value = ctx->input(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    VisitElementStorage(value.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      FillElements(StorageData<S>(*out), StorageData<S>(value)[0], shape.num_elements());
    });
  }
};

// Zero bits are zero for every fixed-size type (floats, halves, complex,
// quantized, bool); strings start empty when allocated.
class ZerosLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    if (BaseType(out->dtype()) != DT_STRING && out->TotalBytes() > 0)
      std::memset(out->raw_data(), 0, out->TotalBytes());
  }
};

template <typename T>
T One() {
  if constexpr (std::is_same_v<T, half>)
    return FloatToHalf(1.0f);
  else if constexpr (std::is_same_v<T, bfloat16>)
    return FloatToBFloat16(1.0f);
  else if constexpr (std::is_same_v<T, bool>)
    return true;
  else
    return T(1);
}

template <typename T>
class OnesLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    FillElements(out->data<T>(), One<T>(), out->NumElements());
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Fill")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("dims")
                            .Expensive(),
                        FillOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ZerosLike")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .Expensive(),
                        ZerosLikeOp);

#define AF_REGISTER_ONES_LIKE(T)                                                          \
  REGISTER_KERNEL_BUILDER(                                                                \
      KernelDefBuilder("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(), \
      OnesLikeOp<T>)
AF_REGISTER_ONES_LIKE(bfloat16);
AF_REGISTER_ONES_LIKE(half);
AF_REGISTER_ONES_LIKE(float);
AF_REGISTER_ONES_LIKE(double);
AF_REGISTER_ONES_LIKE(int8_t);
AF_REGISTER_ONES_LIKE(uint8_t);
AF_REGISTER_ONES_LIKE(int16_t);
AF_REGISTER_ONES_LIKE(uint16_t);
AF_REGISTER_ONES_LIKE(int32_t);
AF_REGISTER_ONES_LIKE(uint32_t);
AF_REGISTER_ONES_LIKE(int64_t);
AF_REGISTER_ONES_LIKE(uint64_t);
AF_REGISTER_ONES_LIKE(complex64);
AF_REGISTER_ONES_LIKE(complex128);
AF_REGISTER_ONES_LIKE(bool);
#undef AF_REGISTER_ONES_LIKE

}  // namespace af
