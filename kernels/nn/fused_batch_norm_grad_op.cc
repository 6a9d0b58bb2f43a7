// FusedBatchNormGrad, V2 and V3 on CPU, from the statistics the forward op
// saved (reserve_space_1 = mean, reserve_space_2 = biased variance) or, for
// is_training=false, the population statistics it was given. With
// inv = 1 / sqrt(var + epsilon), xhat = (x - mean) * inv and m elements per
// channel:
//   offset_backprop = sum(dy)
//   scale_backprop  = sum(dy * xhat)
//   x_backprop      = scale * inv * (dy - sum(dy) / m - xhat * sum(dy * xhat) / m)
// in training; in inference the batch statistics are constants, so
// x_backprop = scale * inv * dy.
#include <cmath>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/nn/batch_norm_layout.h"

namespace af {

namespace {

template <typename T, typename U>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    NormLayout l;
    OP_REQUIRES_OK(ctx, ctx->NodeError(MakeNormLayout(x.shape(), format_, &l)));
    OP_REQUIRES(
        ctx, dy.shape() == x.shape(),
        ctx->NodeError(errors::InvalidArgument(
            "x and y_backprop must have same shape, but x has shape ", x.shape().DebugString(),
            " and y_backprop has shape ", dy.shape().DebugString())));
    const char* names[] = {"scale", "reserve_space_1", "reserve_space_2"};
    for (int i = 2; i < 5; ++i) {
      const Tensor& v = ctx->input(i);
      OP_REQUIRES(ctx, v.dims() == 1 && v.dim_size(0) == l.channels,
                  ctx->NodeError(errors::InvalidArgument(
                      names[i - 2], " must be a vector of the channel count of x (", l.channels,
                      "), got shape ", v.shape().DebugString())));
    }
    Tensor* dx = nullptr;
    Tensor* dscale = nullptr;
    Tensor* doffset = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape{l.channels}, &dscale));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape{l.channels}, &doffset));
    for (int i = 3; i < 5; ++i) {  // placeholders, empty as in TensorFlow
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape{0}, &t));
    }
    const U* scale = ctx->input(2).data<U>();
    const U* mean = ctx->input(3).data<U>();
    const U* var = ctx->input(4).data<U>();
    const T* dyp = dy.data<T>();
    const T* xp = x.data<T>();
    const int64_t m = l.PerChannel();

    std::vector<double> inv(l.channels), sum_dy, sum_dy_xmu;
    for (int64_t c = 0; c < l.channels; ++c)
      inv[c] = 1.0 / std::sqrt(double(var[c]) + double(epsilon_));
    SumPerChannel(
        l, [&](int64_t i, int64_t) { return double(dyp[i]); }, &sum_dy);
    SumPerChannel(
        l, [&](int64_t i, int64_t c) { return double(dyp[i]) * (double(xp[i]) - mean[c]); },
        &sum_dy_xmu);
    U* ds = dscale->data<U>();
    U* doff = doffset->data<U>();
    // x_backprop = dy * k + (x - mean) * q + r per channel.
    std::vector<U> k(l.channels), q(l.channels), r(l.channels);
    for (int64_t c = 0; c < l.channels; ++c) {
      doff[c] = U(sum_dy[c]);
      ds[c] = U(sum_dy_xmu[c] * inv[c]);
      const double g = double(scale[c]) * inv[c];
      k[c] = U(g);
      if (is_training_ && m > 0) {
        q[c] = U(-g * inv[c] * inv[c] * sum_dy_xmu[c] / double(m));
        r[c] = U(-g * sum_dy[c] / double(m));
      } else {
        q[c] = U(0);
        r[c] = U(0);
      }
    }
    T* dxp = dx->data<T>();
    ShardedFor(ctx, l.outer, l.channels * l.inner * 3, [&](int64_t begin, int64_t end) {
      ForEachInRows(l, begin, end, [&](int64_t i, int64_t c) {
        dxp[i] = T(U(dyp[i]) * k[c] + (U(xp[i]) - mean[c]) * q[c] + r[c]);
      });
    });
  }

 private:
  float epsilon_ = 1e-4f;
  bool is_training_ = true;
  std::string format_ = "NHWC";
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("FusedBatchNormGrad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Expensive(),
                        FusedBatchNormGradOp<float, float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("FusedBatchNormGradV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U")
                            .Expensive(),
                        FusedBatchNormGradOp<float, float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("FusedBatchNormGradV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U")
                            .Expensive(),
                        FusedBatchNormGradOp<float, float>);

}  // namespace af
