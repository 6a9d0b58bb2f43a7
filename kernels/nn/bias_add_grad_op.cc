// BiasAddGrad: sums out_backprop over every dim except the channel dim (the
// last in NHWC, dim 1 in NCHW), giving the gradient of BiasAdd's bias.
#include <string>
#include <type_traits>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/nn/blocked_sum.h"

namespace af {

namespace {

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  // float sums in double: a channel can collect millions of terms.
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;

  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format = "NHWC";
    if (ctx->HasAttr("data_format")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    }
    OP_REQUIRES(
        ctx, format == "NHWC" || format == "NCHW",
        errors::InvalidArgument("Invalid data_format '", format, "': expected NHWC or NCHW"));
    channels_first_ = format == "NCHW";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    OP_REQUIRES(ctx, grad.dims() >= 2,
                ctx->NodeError(errors::InvalidArgument("Input tensor must be at least 2D: ",
                                                       grad.shape().DebugString())));
    const int channel_dim = channels_first_ ? 1 : grad.dims() - 1;
    const int64_t channels = grad.dim_size(channel_dim);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{channels}, &out));
    T* bias_grad = out->data<T>();
    std::vector<Acc> sums(channels, Acc(0));
    const int64_t total = grad.NumElements();
    if (total > 0) {
      // View the data as [outer, channels, inner]; inner is 1 for NHWC.
      int64_t inner = 1;
      for (int d = channel_dim + 1; d < grad.dims(); ++d) inner *= grad.dim_size(d);
      const int64_t outer = total / (channels * inner);
      const T* g = grad.data<T>();
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

 private:
  bool channels_first_ = false;
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
