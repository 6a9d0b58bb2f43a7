// Kernel templates for element-wise ops: a unary kernel, a broadcasting
// binary kernel and a same-size binary kernel (gradient helpers),
// parameterized by functors from cwise_functors.h / cwise_float_functors.h.
// Large tensors are split over the device's intra-op pool.
//
// Each output element depends only on the input elements at its own index
// (or on a broadcast input's), so an input of the output's dtype and shape
// that no other consumer holds becomes the output in place
// (core/input_forwarding.h): no allocation, and a
// chain like RandomUniform -> Mul -> Add fills one buffer instead of three.
// The loops' __restrict qualifiers stay: an aliased pair only ever meets at
// the same index, read before written.
#pragma once

#include <algorithm>
#include <type_traits>

#include "core/input_forwarding.h"
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/broadcast.h"
#include "kernels/math/cwise_functors.h"
#include "kernels/math/intra_op_parallel.h"

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
    if constexpr (requires { Functor::ValidateRhs(yp, int64_t{0}); }) {
      if (plan.num_elements() > 0) {
        Status valid = Functor::ValidateRhs(yp, y.NumElements());
        OP_REQUIRES(ctx, valid.ok(), ctx->NodeError(valid));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, x, y, plan.output_shape(), &out));
    if (plan.num_elements() == 0) return;
    Out* zp = out->data<Out>();
    ShardedFor(ctx, plan.num_units(), plan.unit_size() * functor::CostPerElement<Functor>(),
               [&](int64_t begin, int64_t end) {
                 BroadcastBinaryRange(plan, xp, yp, zp, Functor(), begin, end);
               });
  }

 private:
  static Status AllocateOutput(OpKernelContext* ctx, const Tensor& x, const Tensor& y,
                               const TensorShape& shape, Tensor** out) {
    if constexpr (std::is_same_v<In, Out>) {
      // A broadcast input is smaller than the output: only full-shaped
      // inputs can hold it.
      const bool x_full = x.shape() == shape, y_full = y.shape() == shape;
      if (x_full && y_full) return ForwardInputOrAllocateOutput(ctx, {0, 1}, 0, shape, out);
      if (x_full) return ForwardInputOrAllocateOutput(ctx, {0}, 0, shape, out);
      if (y_full) return ForwardInputOrAllocateOutput(ctx, {1}, 0, shape, out);
    }
    return ctx->allocate_output(0, shape, out);
  }

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
    // A functor whose vector form is patched afterwards from the inputs
    // (VectorExact) reads x after writing z: it cannot work in place.
    if constexpr (std::is_same_v<In, Out> && !requires { Functor::VectorExact(In{}); }) {
      OP_REQUIRES_OK(ctx, ForwardInputOrAllocateOutput(ctx, {0}, 0, x.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    }
    const In* xp = x.data<In>();
    Out* zp = out->data<Out>();
    ShardedFor(ctx, x.NumElements(), functor::CostPerElement<Functor>(),
               [xp, zp](int64_t begin, int64_t end) {
                 Apply(xp + begin, zp + begin, end - begin);
               });
  }

 private:
  static void Apply(const In* __restrict x, Out* __restrict z, int64_t n) {
    if constexpr (requires { Functor::Apply(x, z, n); }) {
      Functor::Apply(x, z, n);  // a vectorized whole-run form
      // Where the vector approximation is known to go wrong (its clamps,
      // special values), the scalar definition overwrites it: results must
      // not depend on the vector width the build picked.
      if constexpr (requires { Functor::VectorExact(x[0]); }) {
        bool all_exact = true;  // a branch-free pass that vectorizes
        for (int64_t i = 0; i < n; ++i) all_exact &= Functor::VectorExact(x[i]);
        if (!all_exact) {
          const Functor f;
          for (int64_t i = 0; i < n; ++i)
            if (!Functor::VectorExact(x[i])) z[i] = f(x[i]);
        }
      }
    } else {
      const Functor f;
      for (int64_t i = 0; i < n; ++i) z[i] = f(x[i]);
    }
  }
};

// z = f(x, y) for inputs with the same number of elements, shaped like x; the
// gradient helpers (SigmoidGrad, TanhGrad, ...) are of this kind.
template <typename Functor>
class SameSizeBinaryOpKernel : public OpKernel {
 public:
  using In = typename Functor::in_type;
  using Out = typename Functor::out_type;
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.NumElements() == y.NumElements(),
                ctx->NodeError(errors::InvalidArgument(
                    "The two arguments to a cwise op must have same number of elements, got ",
                    x.NumElements(), " and ", y.NumElements(), " (shapes ",
                    x.shape().DebugString(), " and ", y.shape().DebugString(), ")")));
    Tensor* out = nullptr;
    if constexpr (std::is_same_v<In, Out>) {
      OP_REQUIRES_OK(ctx, ForwardInputOrAllocateOutput(ctx, {0, 1}, 0, x.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    }
    const In* xp = x.data<In>();
    const In* yp = y.data<In>();
    Out* zp = out->data<Out>();
    ShardedFor(ctx, x.NumElements(), functor::CostPerElement<Functor>(),
               [xp, yp, zp](int64_t begin, int64_t end) {
                 broadcast_internal::Elementwise(xp + begin, yp + begin, zp + begin, end - begin,
                                                 Functor());
               });
  }
};

}  // namespace af

// Registers `Kernel<Functor<T>>` for op `OP` on CPU with T constrained to TYPE.
#define AF_REGISTER_CWISE_CPU(OP, KERNEL, FUNCTOR, TYPE)                             \
  REGISTER_KERNEL_BUILDER(                                                           \
      ::af::KernelDefBuilder(OP).Device(::af::DEVICE_CPU).TypeConstraint<TYPE>("T"), \
      KERNEL<FUNCTOR<TYPE>>)
