// BiasAdd: adds a 1-D bias along the channel dim of `value` (the last dim in
// NHWC, dim 1 in NCHW).
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/cwise_functors.h"

namespace af {

namespace {

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, value.dims() >= 2,
                ctx->NodeError(errors::InvalidArgument("Input tensor must be at least 2D: ",
                                                       value.shape().DebugString())));
    OP_REQUIRES(
        ctx, bias.dims() == 1,
        ctx->NodeError(errors::InvalidArgument("Biases must be 1D: ", bias.shape().DebugString())));
    const int channel_dim = channels_first_ ? 1 : value.dims() - 1;
    const int64_t channels = value.dim_size(channel_dim);
    OP_REQUIRES(ctx, bias.dim_size(0) == channels,
                ctx->NodeError(errors::InvalidArgument(
                    "Must provide as many biases as the last dimension of the input tensor: ",
                    bias.shape().DebugString(), " vs. ", value.shape().DebugString())));

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    const int64_t total = value.NumElements();
    if (total == 0) return;

    // View the data as [outer, channels, inner]; inner is 1 for NHWC.
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < value.dims(); ++d) inner *= value.dim_size(d);
    const int64_t outer = total / (channels * inner);
    const T* __restrict x = value.data<T>();
    const T* __restrict b = bias.data<T>();
    T* __restrict z = out->data<T>();
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

 private:
  bool channels_first_ = false;
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
