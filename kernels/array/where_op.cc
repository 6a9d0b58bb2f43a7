// Where: one int64 row of coordinates per true (non-zero) element, in
// row-major order. Two passes (count, then fill) so the output is
// allocated once at its exact size.
#include <cstdint>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/types.h"

namespace af {
namespace {

template <typename T>
bool IsTrue(const T& v) {
  return v != T(0);
}
// Compared as numbers, so that -0.0 counts as zero, as in TensorFlow.
template <>
bool IsTrue<half>(const half& v) {
  return HalfToFloat(v) != 0.0f;
}
template <>
bool IsTrue<bfloat16>(const bfloat16& v) {
  return BFloat16ToFloat(v) != 0.0f;
}
template <>
bool IsTrue<bool>(const bool& v) {
  return v;
}

template <typename T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const T* x = input.data<T>();
    const int64_t n = input.NumElements();
    int64_t num_true = 0;
    for (int64_t i = 0; i < n; ++i) num_true += IsTrue(x[i]) ? 1 : 0;
    const int rank = input.dims();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{num_true, rank}, &out));
    if (num_true == 0 || rank == 0) return;
    // Row-major strides turn a flat index into coordinates.
    std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * input.dim_size(d + 1);
    int64_t* row = out->data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (!IsTrue(x[i])) continue;
      int64_t rest = i;
      for (int d = 0; d < rank; ++d) {
        row[d] = rest / strides[d];
        rest %= strides[d];
      }
      row += rank;
    }
  }
};

}  // namespace

#define AF_REGISTER_WHERE(T)                                                            \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          WhereOp<T>)
AF_REGISTER_WHERE(bool);
AF_REGISTER_WHERE(float);
AF_REGISTER_WHERE(double);
AF_REGISTER_WHERE(half);
AF_REGISTER_WHERE(bfloat16);
AF_REGISTER_WHERE(int8_t);
AF_REGISTER_WHERE(int16_t);
AF_REGISTER_WHERE(int32_t);
AF_REGISTER_WHERE(int64_t);
AF_REGISTER_WHERE(uint8_t);
AF_REGISTER_WHERE(uint16_t);
AF_REGISTER_WHERE(uint32_t);
AF_REGISTER_WHERE(uint64_t);
AF_REGISTER_WHERE(complex64);
AF_REGISTER_WHERE(complex128);
#undef AF_REGISTER_WHERE

}  // namespace af
