// BiasAdd: adds a 1-D bias along the channel dim of `value` (the last dim in
// NHWC, dim 1 in NCHW).
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/cwise_functors.h"
#include "kernels/nn/bias_add_shape.h"

namespace af {

namespace {

template <typename T>
class BiasAddOp : public BiasAddKernelBase {
 public:
  using BiasAddKernelBase::BiasAddKernelBase;

  void Compute(OpKernelContext* ctx) override {
    BiasAddDims d;
    OP_REQUIRES_OK(ctx, PrepareBiasAdd(ctx, &d));
    if (d.total == 0) return;

    // The data as [outer, channels, inner].
    const int64_t outer = d.outer, channels = d.channels, inner = d.inner;
    const T* __restrict x = ctx->input(0).data<T>();
    const T* __restrict b = ctx->input(1).data<T>();
    T* __restrict z = d.out->data<T>();
    if (inner == 1) {
      for (int64_t o = 0; o < outer; ++o, x += channels, z += channels)
        for (int64_t c = 0; c < channels; ++c) z[c] = functor::WrappingAdd(x[c], b[c]);
      return;
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < channels; ++c, x += inner, z += inner) {
        const T bc = b[c];
        for (int64_t i = 0; i < inner; ++i) z[i] = functor::WrappingAdd(x[i], bc);
      }
    }
  }
};

}  // namespace

#define AF_REGISTER_BIAS_ADD(T)                                                                  \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BiasAddOp<T>)
AF_REGISTER_BIAS_ADD(float);
AF_REGISTER_BIAS_ADD(double);
AF_REGISTER_BIAS_ADD(int32_t);
AF_REGISTER_BIAS_ADD(int64_t);
#undef AF_REGISTER_BIAS_ADD

}  // namespace af
