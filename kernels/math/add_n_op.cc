// AddN: the sum of N tensors of one shape (no broadcasting).
#include <algorithm>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/cwise_functors.h"

namespace af {

namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  ctx->NodeError(errors::InvalidArgument(
                      "Inputs to operation ", name(), " of type ", type_string(),
                      " must have the same size and shape.  Input 0: ", first.shape().DebugString(),
                      " != input ", i, ": ", ctx->input(i).shape().DebugString())));
    }
    if (n == 1) {
      ctx->set_output(0, first);  // the sum of one tensor is that tensor
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    T* __restrict z = out->data<T>();
    const int64_t total = first.NumElements();

    // Blocked so the partial sums stay in L1 while every input streams by
    // once, instead of N full passes over the output.
    constexpr int64_t kBlock = 2048;
    for (int64_t begin = 0; begin < total; begin += kBlock) {
      const int64_t len = std::min(kBlock, total - begin);
      const T* __restrict a = ctx->input(0).data<T>() + begin;
      const T* __restrict b = ctx->input(1).data<T>() + begin;
      T* __restrict zb = z + begin;
      for (int64_t i = 0; i < len; ++i) zb[i] = functor::WrappingAdd(a[i], b[i]);
      for (int k = 2; k < n; ++k) {
        const T* __restrict c = ctx->input(k).data<T>() + begin;
        for (int64_t i = 0; i < len; ++i) zb[i] = functor::WrappingAdd(zb[i], c[i]);
      }
    }
  }
};

}  // namespace

#define AF_REGISTER_ADD_N(T)                                                                  \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AddNOp<T>)
AF_REGISTER_ADD_N(float);
AF_REGISTER_ADD_N(double);
AF_REGISTER_ADD_N(int32_t);
AF_REGISTER_ADD_N(int64_t);
#undef AF_REGISTER_ADD_N

}  // namespace af
