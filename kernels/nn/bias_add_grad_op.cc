// BiasAddGrad: sums out_backprop over every dim except the channel dim (the
// last in NHWC, dim 1 in NCHW), giving the gradient of BiasAdd's bias.
#include <type_traits>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/nn/bias_add_shape.h"
#include "kernels/nn/blocked_sum.h"

namespace af {

namespace {

template <typename T>
class BiasAddGradOp : public BiasAddKernelBase {
 public:
  // float sums in double: a channel can collect millions of terms.
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;

  using BiasAddKernelBase::BiasAddKernelBase;

  void Compute(OpKernelContext* ctx) override {
    BiasAddDims d;
    OP_REQUIRES_OK(ctx, PrepareBiasAddGrad(ctx, &d));
    const int64_t channels = d.channels;
    T* bias_grad = d.out->data<T>();
    std::vector<Acc> sums(channels, Acc(0));
    if (d.total > 0) {
      // The data as [outer, channels, inner].
      const int64_t outer = d.outer, inner = d.inner;
      const T* g = ctx->input(0).data<T>();
      Acc* __restrict s = sums.data();
      for (int64_t o = 0; o < outer; ++o) {
        if (inner == 1) {
          for (int64_t c = 0; c < channels; ++c) s[c] += g[c];
          g += channels;
          continue;
        }
        for (int64_t c = 0; c < channels; ++c, g += inner) s[c] += BlockedSum<Acc>(g, inner);
      }
    }
    for (int64_t c = 0; c < channels; ++c) bias_grad[c] = static_cast<T>(sums[c]);
  }
};

}  // namespace

#define AF_REGISTER_BIAS_ADD_GRAD(T)                                                         \
  REGISTER_KERNEL_BUILDER(                                                                   \
      KernelDefBuilder("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(), \
      BiasAddGradOp<T>)
AF_REGISTER_BIAS_ADD_GRAD(float);
AF_REGISTER_BIAS_ADD_GRAD(double);
#undef AF_REGISTER_BIAS_ADD_GRAD

}  // namespace af
