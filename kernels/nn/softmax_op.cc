// Softmax and LogSoftmax over the last dim, row by row:
//   softmax     = exp(x - max) / sum(exp(x - max))
//   log_softmax = (x - max) - log(sum(exp(x - max)))
// Subtracting the row max keeps exp from overflowing for large logits.
#include <cmath>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/eigen_core.h"
#include "kernels/math/cwise_float_functors.h"
#include "kernels/nn/softmax_shape.h"

namespace af {

namespace {

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int64_t rows = 0, depth = 0;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareSoftmax(ctx, &rows, &depth, &out));
    if (rows == 0) return;
    const Tensor& logits = ctx->input(0);

    using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
    const T* in = logits.data<T>();
    T* res = out->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      Eigen::Map<const Row> x(in + r * depth, depth);
      Eigen::Map<Row> y(res + r * depth, depth);
      const T max = x.maxCoeff();
      if constexpr (kLog) {
        y = x - max;
        y -= std::log(y.exp().sum());  // Eigen's vectorized exp
      } else {
        y = (x - max).exp();
        // Masked (-inf) and far-below-max logits must give exactly 0, which
        // Eigen's clamped exp does not: the Exp kernel's repair, per lane.
        using Exp = functor::Exp<T>;
        for (int64_t i = 0; i < depth; ++i) {
          const T shifted = x[i] - max;
          if (!Exp::VectorExact(shifted)) y[i] = Exp()(shifted);
        }
        y *= T(1) / y.sum();
      }
    }
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Softmax").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        SoftmaxOp<float, false>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Softmax").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        SoftmaxOp<double, false>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    SoftmaxOp<float, true>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<double>("T"),
    SoftmaxOp<double, true>);

}  // namespace af
