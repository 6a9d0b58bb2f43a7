// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits:
// per row of logits, loss = -sum(labels * log_softmax(logits)) and
// backprop = softmax(logits) - labels, computed from the row max shifted
// logits so that exp cannot overflow.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/nn/softmax_xent_shape.h"

namespace af {

namespace {

// Softmax of one row into `backprop`; returns log(sum(exp(x - max))) and
// sets *max.
template <typename T>
T SoftmaxRow(const T* x, int64_t x_step, int64_t classes, T* backprop, T* max) {
  T m = x[0];
  for (int64_t c = 1; c < classes; ++c) m = std::max(m, x[c * x_step]);
  T sum = T(0);
  for (int64_t c = 0; c < classes; ++c) {
    backprop[c] = std::exp(x[c * x_step] - m);
    sum += backprop[c];
  }
  const T inv = T(1) / sum;
  for (int64_t c = 0; c < classes; ++c) backprop[c] *= inv;
  *max = m;
  return std::log(sum);
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    XentCall call;
    OP_REQUIRES_OK(ctx, PrepareSoftmaxXent(ctx, &call));
    const int64_t batch = call.batch, classes = call.classes;
    if (batch == 0) return;
    T* loss_p = call.loss->data<T>();
    if (classes == 0) {  // nothing to normalize over: an empty sum
      std::fill(loss_p, loss_p + batch, T(0));
      return;
    }
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    // Broadcast dims step by 0.
    const int64_t lc = XentColumnStride(logits);
    const int64_t lr = XentRowStride(logits);
    const int64_t yc = XentColumnStride(labels);
    const int64_t yr = XentRowStride(labels);
    const T* x = logits.data<T>();
    const T* y = labels.data<T>();
    T* bp = call.backprop->data<T>();
    ShardedFor(ctx, batch, classes * 40, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const T* xr = x + b * lr;
        const T* yrow = y + b * yr;
        T* g = bp + b * classes;
        T max;
        const T log_sum = SoftmaxRow(xr, lc, classes, g, &max);
        T l = T(0);
        for (int64_t c = 0; c < classes; ++c) {
          const T label = yrow[c * yc];
          // -label * log_softmax, with log_softmax = (x - max) - log_sum.
          l += label * (log_sum - (xr[c * lc] - max));
          g[c] -= label;
        }
        loss_p[b] = l;
      }
    });
  }
};

template <typename T, typename Index>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    XentCall call;
    OP_REQUIRES_OK(ctx, PrepareSparseSoftmaxXent(ctx, &call));
    const int64_t batch = call.batch, classes = call.classes;
    const T* x = ctx->input(0).data<T>();
    const Index* label = ctx->input(1).data<Index>();
    T* loss_p = call.loss->data<T>();
    T* bp = call.backprop->data<T>();
    ShardedFor(ctx, batch, classes * 40, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const T* xr = x + b * classes;
        T* g = bp + b * classes;
        T max;
        const T log_sum = SoftmaxRow(xr, 1, classes, g, &max);
        loss_p[b] = log_sum - (xr[label[b]] - max);
        g[label[b]] -= T(1);
      }
    });
  }
};

}  // namespace

#define AF_REGISTER_XENT(T)                                                       \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SoftmaxCrossEntropyWithLogits")       \
                              .Device(DEVICE_CPU)                                 \
                              .TypeConstraint<T>("T")                             \
                              .Expensive(),                                       \
                          SoftmaxXentOp<T>);                                      \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                                 \
                              .TypeConstraint<T>("T")                             \
                              .TypeConstraint<int32_t>("Tlabels")                 \
                              .Expensive(),                                       \
                          SparseSoftmaxXentOp<T, int32_t>);                       \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                                 \
                              .TypeConstraint<T>("T")                             \
                              .TypeConstraint<int64_t>("Tlabels")                 \
                              .Expensive(),                                       \
                          SparseSoftmaxXentOp<T, int64_t>)
AF_REGISTER_XENT(float);
AF_REGISTER_XENT(double);
#undef AF_REGISTER_XENT

}  // namespace af
