// FusedBatchNorm, V2 and V3 on CPU.
//
// Training: y = (x - mean) / sqrt(var + epsilon) * scale + offset with the
// batch's own mean and (biased) variance. batch_mean/batch_variance report
// the mean and the Bessel-corrected variance, blended into the incoming
// running values when exponential_avg_factor != 1; reserve_space_1/2 keep
// the mean and biased variance for the gradient. Inference normalizes with
// the given mean and variance and passes them through.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/nn/batch_norm_layout.h"

namespace af {

namespace {

template <typename T, typename U>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format_));
    if (ctx->HasAttr("exponential_avg_factor")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor", &factor_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    NormLayout l;
    OP_REQUIRES_OK(ctx, ctx->NodeError(MakeNormLayout(x.shape(), format_, &l)));
    // Training with factor 1 ignores the running statistics (often empty).
    const bool uses_running = !is_training_ || factor_ != 1.0f;
    const char* names[] = {"scale", "offset", "mean", "variance"};
    for (int i = 1; i < 5; ++i) {
      const Tensor& v = ctx->input(i);
      OP_REQUIRES(ctx, v.dims() == 1,
                  ctx->NodeError(errors::InvalidArgument(
                      names[i - 1], " must be 1-dimensional, got ", v.shape().DebugString())));
      if (i >= 3 && !uses_running) continue;
      OP_REQUIRES(
          ctx, v.dim_size(0) == l.channels,
          ctx->NodeError(errors::InvalidArgument(
              names[i - 1], " must have the same number of elements as the channels of x, got ",
              v.dim_size(0), " and ", l.channels)));
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    U* stats[4];
    for (int i = 0; i < 4; ++i) {
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i + 1, TensorShape{l.channels}, &t));
      stats[i] = t->data<U>();
    }
    if (num_outputs() == 6) {  // V3's reserve_space_3: unused on CPU
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape{}, &t));
      t->scalar<U>() = U(0);
    }
    U* batch_mean = stats[0];
    U* batch_var = stats[1];
    U* saved_mean = stats[2];
    U* saved_var = stats[3];
    const U* scale = ctx->input(1).data<U>();
    const U* offset = ctx->input(2).data<U>();
    const U* running_mean = ctx->input(3).data<U>();
    const U* running_var = ctx->input(4).data<U>();
    const T* xp = x.data<T>();
    const int64_t m = l.PerChannel();

    std::vector<double> mean(l.channels), var(l.channels);
    if (is_training_) {
      if (m == 0) {  // no statistics to take
        for (int i = 0; i < 4; ++i)
          std::fill(stats[i], stats[i] + l.channels, std::numeric_limits<U>::quiet_NaN());
        return;
      }
      SumPerChannel(
          l, [&](int64_t i, int64_t) { return double(xp[i]); }, &mean);
      for (double& v : mean) v /= double(m);
      // Two passes: sum((x - mean)^2) does not cancel like E[x^2] - mean^2.
      SumPerChannel(
          l,
          [&](int64_t i, int64_t c) {
            const double dx = double(xp[i]) - mean[c];
            return dx * dx;
          },
          &var);
      for (double& v : var) v /= double(m);
      const double bessel = m > 1 ? double(m) / double(m - 1) : 1.0;
      const double f = factor_;
      for (int64_t c = 0; c < l.channels; ++c) {
        const double unbiased = var[c] * bessel;
        batch_mean[c] = f == 1.0 ? U(mean[c]) : U((1 - f) * running_mean[c] + f * mean[c]);
        batch_var[c] = f == 1.0 ? U(unbiased) : U((1 - f) * running_var[c] + f * unbiased);
        saved_mean[c] = U(mean[c]);
        saved_var[c] = U(var[c]);
      }
    } else {
      for (int64_t c = 0; c < l.channels; ++c) {
        mean[c] = running_mean[c];
        var[c] = running_var[c];
        batch_mean[c] = saved_mean[c] = running_mean[c];
        batch_var[c] = saved_var[c] = running_var[c];
      }
    }
    // y = x * a + b per channel.
    std::vector<U> a(l.channels), b(l.channels);
    for (int64_t c = 0; c < l.channels; ++c) {
      const double inv = 1.0 / std::sqrt(var[c] + double(epsilon_));
      a[c] = U(double(scale[c]) * inv);
      b[c] = U(double(offset[c]) - mean[c] * double(scale[c]) * inv);
    }
    T* yp = y->data<T>();
    ShardedFor(ctx, l.outer, l.channels * l.inner * 2, [&](int64_t begin, int64_t end) {
      ForEachInRows(l, begin, end,
                    [&](int64_t i, int64_t c) { yp[i] = T(U(xp[i]) * a[c] + b[c]); });
    });
  }

 private:
  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool is_training_ = true;
  std::string format_ = "NHWC";
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T").Expensive(),
    FusedBatchNormOp<float, float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("FusedBatchNormV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U")
                            .Expensive(),
                        FusedBatchNormOp<float, float>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("FusedBatchNormV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U")
                            .Expensive(),
                        FusedBatchNormOp<float, float>);

}  // namespace af
