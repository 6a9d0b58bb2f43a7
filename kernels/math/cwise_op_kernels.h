// Kernel templates for element-wise ops: one unary and one broadcasting
// binary kernel, parameterized by a functor from cwise_functors.h.
#pragma once

#include <algorithm>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/broadcast.h"
#include "kernels/math/cwise_functors.h"

namespace af {

template <typename Functor>
class BinaryOpKernel : public OpKernel {
 public:
  using In = typename Functor::in_type;
  using Out = typename Functor::out_type;

  explicit BinaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // Only Equal and NotEqual carry this attr.
    if (ctx->HasAttr("incompatible_shape_error")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryBroadcast plan;
    Status planned = plan.Init(x.shape(), y.shape());
    if (!planned.ok()) {
      if constexpr (requires { Functor::kIncompatibleShapeValue; }) {
        if (!incompatible_shape_error_) {
          // TensorFlow answers a scalar instead of failing in this mode.
          Tensor* out = nullptr;
          OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
          out->scalar<bool>() = Functor::kIncompatibleShapeValue;
          return;
        }
      }
      ctx->SetStatus(ctx->NodeError(planned));
      return;
    }
    const In* xp = x.data<In>();
    const In* yp = y.data<In>();
    if constexpr (Functor::kRejectsZeroDivisor) {
      const int64_t ny = y.NumElements();
      OP_REQUIRES(ctx, plan.num_elements() == 0 || std::find(yp, yp + ny, In(0)) == yp + ny,
                  ctx->NodeError(errors::InvalidArgument("Integer division by zero")));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    BroadcastBinaryLoop(plan, xp, yp, out->data<Out>(), Functor());
  }

 private:
  bool incompatible_shape_error_ = true;
};

template <typename Functor>
class UnaryOpKernel : public OpKernel {
 public:
  using In = typename Functor::in_type;
  using Out = typename Functor::out_type;
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const In* __restrict xp = x.data<In>();
    Out* __restrict zp = out->data<Out>();
    const int64_t n = x.NumElements();
    const Functor f;
    for (int64_t i = 0; i < n; ++i) zp[i] = f(xp[i]);
  }
};

}  // namespace af

// Registers `Kernel<Functor<T>>` for op `OP` on CPU with T constrained to TYPE.
#define AF_REGISTER_CWISE_CPU(OP, KERNEL, FUNCTOR, TYPE)                             \
  REGISTER_KERNEL_BUILDER(                                                           \
      ::af::KernelDefBuilder(OP).Device(::af::DEVICE_CPU).TypeConstraint<TYPE>("T"), \
      KERNEL<FUNCTOR<TYPE>>)
