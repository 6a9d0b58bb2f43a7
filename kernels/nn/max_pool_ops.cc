// MaxPool and MaxPoolGrad with direct loops. With channels innermost (NHWC)
// every window step is a vectorized max over a contiguous channel row; for
// the 2x2 pools of small CNNs that matches or beats oneDNN's NHWC pooling
// (bench/ops, case maxpool_2x2) and needs no primitive per shape. Padding
// never wins a max. MaxPoolGrad recomputes each window's argmax from orig_input and
// routes the gradient to its first maximum, as TensorFlow does.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/window_geometry.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/nn/pool_dims.h"

namespace af {

namespace {

template <typename T>
class MaxPoolOp : public OpKernel {
 public:
  explicit MaxPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParsePool2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PreparePool2D(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    const Tensor& input = ctx->input(0);
    const T* in = input.data<T>();
    T* y = out->data<T>();
    const int64_t is = d.InputChannelStep(), os = d.OutputChannelStep();
    const int64_t cost = d.out_w * d.depth * d.ksize_h * d.ksize_w;
    // One unit is one output row of one image.
    ShardedFor(ctx, d.batch * d.out_h, cost, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / d.out_h, oy = unit % d.out_h;
        int64_t y0, y1;
        d.Rows(oy, &y0, &y1);
        for (int64_t ox = 0; ox < d.out_w; ++ox) {
          int64_t x0, x1;
          d.Cols(ox, &x0, &x1);
          T* o = y + d.OutputOffset(n, oy, ox);
          for (int64_t c = 0; c < d.depth; ++c) o[c * os] = std::numeric_limits<T>::lowest();
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              const T* v = in + d.InputOffset(n, iy, ix);
              for (int64_t c = 0; c < d.depth; ++c)
                o[c * os] = v[c * is] > o[c * os] ? v[c * is] : o[c * os];
            }
        }
      }
    });
  }

 private:
  Window2D window_;
};

template <typename T>
class MaxPoolGradOp : public OpKernel {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParsePool2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareMaxPoolGrad(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    const Tensor& orig_input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    const T* in = orig_input.data<T>();
    const T* g = grad.data<T>();
    T* dx = out->data<T>();
    const int64_t is = d.InputChannelStep(), os = d.OutputChannelStep();
    const int64_t image = d.in_h * d.in_w * d.depth;
    const int64_t cost = d.out_h * d.out_w * d.depth * d.ksize_h * d.ksize_w * 2;
    // One unit is one image: windows overlap across rows, never images.
    ShardedFor(ctx, d.batch, cost, [&](int64_t begin, int64_t end) {
      std::fill(dx + begin * image, dx + end * image, T(0));
      std::vector<T> best(d.depth);
      std::vector<int64_t> where(d.depth);
      for (int64_t n = begin; n < end; ++n)
        for (int64_t oy = 0; oy < d.out_h; ++oy) {
          int64_t y0, y1;
          d.Rows(oy, &y0, &y1);
          for (int64_t ox = 0; ox < d.out_w; ++ox) {
            int64_t x0, x1;
            d.Cols(ox, &x0, &x1);
            std::fill(best.begin(), best.end(), std::numeric_limits<T>::lowest());
            std::fill(where.begin(), where.end(), int64_t{-1});
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ix = x0; ix < x1; ++ix) {
                const int64_t base = d.InputOffset(n, iy, ix);
                for (int64_t c = 0; c < d.depth; ++c) {
                  const T v = in[base + c * is];
                  // Strictly greater: the first maximum keeps the gradient.
                  const bool better = v > best[c] || where[c] < 0;
                  best[c] = better ? v : best[c];
                  where[c] = better ? base + c * is : where[c];
                }
              }
            const T* go = g + d.OutputOffset(n, oy, ox);
            for (int64_t c = 0; c < d.depth; ++c)
              if (where[c] >= 0) dx[where[c]] += go[c * os];
          }
        }
    });
  }

 private:
  Window2D window_;
};

}  // namespace

#define AF_REGISTER_MAX_POOL(T)                                                          \
  REGISTER_KERNEL_BUILDER(                                                               \
      KernelDefBuilder("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(), \
      MaxPoolOp<T>)
AF_REGISTER_MAX_POOL(float);
AF_REGISTER_MAX_POOL(double);
AF_REGISTER_MAX_POOL(int32_t);
AF_REGISTER_MAX_POOL(int64_t);
#undef AF_REGISTER_MAX_POOL

REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<float>("T").Expensive(),
    MaxPoolGradOp<float>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<double>("T").Expensive(),
    MaxPoolGradOp<double>);

}  // namespace af
