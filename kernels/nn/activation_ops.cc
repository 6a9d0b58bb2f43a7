// Relu6, Elu, Selu, Softplus and the gradients of the activations
// (ReluGrad, Relu6Grad, EluGrad, SeluGrad, SoftplusGrad).
#include <cstdint>

#include "core/input_forwarding.h"
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/nn/activation_functors.h"

namespace af {

namespace {

template <typename T, template <typename> class F>
class ActivationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ForwardInputOrAllocateOutput(ctx, {0}, 0, x.shape(), &out));
    const T* in = x.data<T>();
    T* y = out->data<T>();
    ShardedFor(ctx, x.NumElements(), F<T>::kCycles, [&](int64_t begin, int64_t end) {
      const F<T> f;
      for (int64_t i = begin; i < end; ++i) y[i] = f(in[i]);
    });
  }
};

template <typename T, template <typename> class F>
class ActivationGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& saved = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == saved.shape(),
                ctx->NodeError(errors::InvalidArgument(
                    "Inputs to operation ", name(), " of type ", type_string(),
                    " must have the same size and shape.  Input 0: ", g.shape().DebugString(),
                    " != input 1: ", saved.shape().DebugString())));
    Tensor* out = nullptr;
    // Element i reads g[i] and saved[i] only: either may take the result.
    OP_REQUIRES_OK(ctx, ForwardInputOrAllocateOutput(ctx, {0, 1}, 0, g.shape(), &out));
    const T* gp = g.data<T>();
    const T* sp = saved.data<T>();
    T* y = out->data<T>();
    ShardedFor(ctx, g.NumElements(), F<T>::kCycles, [&](int64_t begin, int64_t end) {
      const F<T> f;
      for (int64_t i = begin; i < end; ++i) y[i] = f(gp[i], sp[i]);
    });
  }
};

}  // namespace

#define AF_REGISTER_ACTIVATION(OP, KERNEL, FUNCTOR, T)                                    \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          KERNEL<T, nn_functor::FUNCTOR>)
#define AF_REGISTER_FLOATING(OP, KERNEL, FUNCTOR)     \
  AF_REGISTER_ACTIVATION(OP, KERNEL, FUNCTOR, float); \
  AF_REGISTER_ACTIVATION(OP, KERNEL, FUNCTOR, double)
#define AF_REGISTER_REAL(OP, KERNEL, FUNCTOR)           \
  AF_REGISTER_FLOATING(OP, KERNEL, FUNCTOR);            \
  AF_REGISTER_ACTIVATION(OP, KERNEL, FUNCTOR, int32_t); \
  AF_REGISTER_ACTIVATION(OP, KERNEL, FUNCTOR, int64_t)

AF_REGISTER_REAL("Relu6", ActivationOp, Relu6);
AF_REGISTER_FLOATING("Elu", ActivationOp, Elu);
AF_REGISTER_FLOATING("Selu", ActivationOp, Selu);
AF_REGISTER_FLOATING("Softplus", ActivationOp, Softplus);
AF_REGISTER_REAL("ReluGrad", ActivationGradOp, ReluGrad);
AF_REGISTER_REAL("Relu6Grad", ActivationGradOp, Relu6Grad);
AF_REGISTER_FLOATING("EluGrad", ActivationGradOp, EluGrad);
AF_REGISTER_FLOATING("SeluGrad", ActivationGradOp, SeluGrad);
AF_REGISTER_FLOATING("SoftplusGrad", ActivationGradOp, SoftplusGrad);

#undef AF_REGISTER_REAL
#undef AF_REGISTER_FLOATING
#undef AF_REGISTER_ACTIVATION

}  // namespace af
