// Select (TensorFlow 1 semantics) and SelectV2 (full broadcasting): pick
// elements of `t` where `condition` is true and of `e` elsewhere.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/intra_op_parallel.h"
#include "kernels/math/ternary_broadcast.h"

namespace af {

namespace {

// Strings cost far more to copy than a cycle; the rest is a load and a store.
template <typename T>
constexpr int64_t kCopyCost = std::is_same_v<T, std::string> ? 20 : 1;

template <typename T>
void SelectElementwise(OpKernelContext* ctx, const bool* cond, const T* t, const T* e, T* out,
                       int64_t n) {
  ShardedFor(ctx, n, kCopyCost<T>, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = cond[i] ? t[i] : e[i];
  });
}

template <typename T>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& then_t = ctx->input(1);
    const Tensor& else_t = ctx->input(2);
    OP_REQUIRES(ctx, then_t.shape() == else_t.shape(),
                ctx->NodeError(errors::InvalidArgument(
                    "'then' and 'else' must have the same size.  but received: ",
                    then_t.shape().DebugString(), " vs. ", else_t.shape().DebugString())));
    if (cond.dims() == 0) {
      // One decision for the whole tensor: pass the chosen input through.
      ctx->set_output(0, cond.scalar<bool>() ? then_t : else_t);
      return;
    }
    const bool by_rows = cond.dims() == 1 && then_t.dims() != 1;
    if (by_rows) {
      OP_REQUIRES(ctx, then_t.dims() >= 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "'then' must be at least a vector, but saw shape: ",
                      then_t.shape().DebugString())));
      OP_REQUIRES(ctx, then_t.dim_size(0) == cond.NumElements(),
                  ctx->NodeError(errors::InvalidArgument(
                      "Number of batches of 'then' must match size of 'cond', but saw: ",
                      then_t.dim_size(0), " vs. ", cond.NumElements())));
    } else {
      OP_REQUIRES(ctx, cond.shape() == then_t.shape(),
                  ctx->NodeError(errors::InvalidArgument(
                      "'cond' and 'then' must have the same shape, or 'cond' must be a scalar "
                      "or a vector matching the first dimension of 'then', but received: ",
                      cond.shape().DebugString(), " vs. ", then_t.shape().DebugString())));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, then_t.shape(), &out));
    const bool* c = cond.data<bool>();
    const T* t = then_t.data<T>();
    const T* e = else_t.data<T>();
    T* o = out->data<T>();
    if (!by_rows) {
      SelectElementwise(ctx, c, t, e, o, then_t.NumElements());
      return;
    }
    const int64_t rows = then_t.dim_size(0);
    const int64_t row_size = rows == 0 ? 0 : then_t.NumElements() / rows;
    ShardedFor(ctx, rows, row_size * kCopyCost<T>, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* src = (c[r] ? t : e) + r * row_size;
        std::copy(src, src + row_size, o + r * row_size);
      }
    });
  }
};

template <typename T>
class SelectV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& then_t = ctx->input(1);
    const Tensor& else_t = ctx->input(2);
    TernaryBroadcast plan;
    Status planned = plan.Init(cond.shape(), then_t.shape(), else_t.shape());
    OP_REQUIRES(ctx, planned.ok(), ctx->NodeError(planned));
    const bool* c = cond.data<bool>();
    if (cond.NumElements() == 1 && plan.num_elements() > 0) {
      // One decision: the chosen input passes through if it already has the
      // output's shape.
      const Tensor& chosen = c[0] ? then_t : else_t;
      if (chosen.shape() == plan.output_shape()) {
        ctx->set_output(0, chosen);
        return;
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    const T* t = then_t.data<T>();
    const T* e = else_t.data<T>();
    T* o = out->data<T>();
    if (cond.shape() == plan.output_shape() && then_t.shape() == plan.output_shape() &&
        else_t.shape() == plan.output_shape()) {
      SelectElementwise(ctx, c, t, e, o, plan.num_elements());
      return;
    }
    ShardedFor(ctx, plan.num_units(), plan.unit_size() * kCopyCost<T>,
               [&](int64_t begin, int64_t end) {
                 plan.ForEachRun(begin, end,
                                 [&](int64_t out_offset, const std::array<int64_t, 3>& offsets,
                                     const std::array<int64_t, 3>& steps, int64_t length) {
                                   const bool* cr = c + offsets[0];
                                   const T* tr = t + offsets[1];
                                   const T* er = e + offsets[2];
                                   T* orun = o + out_offset;
                                   for (int64_t i = 0; i < length; ++i)
                                     orun[i] = cr[i * steps[0]] ? tr[i * steps[1]]
                                                                : er[i * steps[2]];
                                 });
               });
  }
};

}  // namespace

#define AF_REGISTER_SELECT(T)                                                                  \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          SelectOp<T>);                                                        \
  REGISTER_KERNEL_BUILDER(                                                                     \
      KernelDefBuilder("SelectV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectV2Op<T>)
AF_REGISTER_SELECT(float);
AF_REGISTER_SELECT(double);
AF_REGISTER_SELECT(int32_t);
AF_REGISTER_SELECT(int64_t);
AF_REGISTER_SELECT(int16_t);
AF_REGISTER_SELECT(int8_t);
AF_REGISTER_SELECT(uint8_t);
AF_REGISTER_SELECT(bool);
AF_REGISTER_SELECT(half);
AF_REGISTER_SELECT(bfloat16);
AF_REGISTER_SELECT(complex64);
AF_REGISTER_SELECT(complex128);
AF_REGISTER_SELECT(std::string);
#undef AF_REGISTER_SELECT

}  // namespace af
