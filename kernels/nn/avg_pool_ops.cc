// AvgPool and AvgPoolGrad with direct loops, channels innermost. A window's
// mean counts only the input elements under it, never padding (TensorFlow's
// rule), so SAME windows at the edges divide by fewer elements.
#include <algorithm>
#include <cstdint>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/window_geometry.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/nn/pool_dims.h"

namespace af {

namespace {

template <typename T>
class AvgPoolOp : public OpKernel {
 public:
  explicit AvgPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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
    ShardedFor(ctx, d.batch * d.out_h, cost, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / d.out_h, oy = unit % d.out_h;
        int64_t y0, y1;
        d.Rows(oy, &y0, &y1);
        for (int64_t ox = 0; ox < d.out_w; ++ox) {
          int64_t x0, x1;
          d.Cols(ox, &x0, &x1);
          T* o = y + d.OutputOffset(n, oy, ox);
          for (int64_t c = 0; c < d.depth; ++c) o[c * os] = T(0);
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              const T* v = in + d.InputOffset(n, iy, ix);
              for (int64_t c = 0; c < d.depth; ++c) o[c * os] += v[c * is];
            }
          const T inv = T(1) / static_cast<T>((y1 - y0) * (x1 - x0));
          for (int64_t c = 0; c < d.depth; ++c) o[c * os] *= inv;
        }
      }
    });
  }

 private:
  Window2D window_;
};

template <typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParsePool2DAttrs(ctx->def(), &window_));
  }

  void Compute(OpKernelContext* ctx) override {
    Pool2DDims d;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareAvgPoolGrad(ctx, window_, &d, &out));
    if (out->NumElements() == 0) return;
    const Tensor& grad = ctx->input(1);
    const T* g = grad.data<T>();
    T* dx = out->data<T>();
    const int64_t is = d.InputChannelStep(), os = d.OutputChannelStep();
    const int64_t image = d.in_h * d.in_w * d.depth;
    const int64_t cost = d.out_h * d.out_w * d.depth * d.ksize_h * d.ksize_w;
    ShardedFor(ctx, d.batch, cost, [&](int64_t begin, int64_t end) {
      std::fill(dx + begin * image, dx + end * image, T(0));
      for (int64_t n = begin; n < end; ++n)
        for (int64_t oy = 0; oy < d.out_h; ++oy) {
          int64_t y0, y1;
          d.Rows(oy, &y0, &y1);
          for (int64_t ox = 0; ox < d.out_w; ++ox) {
            int64_t x0, x1;
            d.Cols(ox, &x0, &x1);
            const T* go = g + d.OutputOffset(n, oy, ox);
            const T inv = T(1) / static_cast<T>((y1 - y0) * (x1 - x0));
            for (int64_t iy = y0; iy < y1; ++iy)
              for (int64_t ix = x0; ix < x1; ++ix) {
                T* v = dx + d.InputOffset(n, iy, ix);
                for (int64_t c = 0; c < d.depth; ++c) v[c * is] += go[c * os] * inv;
              }
          }
        }
    });
  }

 private:
  Window2D window_;
};

}  // namespace

#define AF_REGISTER_AVG_POOL(T)                                                          \
  REGISTER_KERNEL_BUILDER(                                                               \
      KernelDefBuilder("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T").Expensive(), \
      AvgPoolOp<T>);                                                                     \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("AvgPoolGrad")                                \
                              .Device(DEVICE_CPU)                                        \
                              .TypeConstraint<T>("T")                                    \
                              .HostMemory("orig_input_shape")                            \
                              .Expensive(),                                              \
                          AvgPoolGradOp<T>)
AF_REGISTER_AVG_POOL(float);
AF_REGISTER_AVG_POOL(double);
#undef AF_REGISTER_AVG_POOL

}  // namespace af
