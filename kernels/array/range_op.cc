// Range: start, start + delta, ... while short of limit.
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    T start{}, limit{}, delta{};
    OP_REQUIRES_OK(ctx, Scalar(ctx, 0, "start", &start));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 1, "limit", &limit));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 2, "delta", &delta));
    OP_REQUIRES(ctx, delta != T(0),
                ctx->NodeError(errors::InvalidArgument("Requires delta != 0: ", +delta)));
    if (delta > T(0)) {
      OP_REQUIRES(ctx, start <= limit,
                  ctx->NodeError(errors::InvalidArgument(
                      "Requires start <= limit when delta > 0: ", +start, "/", +limit)));
    } else {
      OP_REQUIRES(ctx, start >= limit,
                  ctx->NodeError(errors::InvalidArgument(
                      "Requires start >= limit when delta < 0: ", +start, "/", +limit)));
    }
    int64_t size = 0;
    if constexpr (std::is_integral_v<T>) {
      // In int64 (or unsigned arithmetic for uint types) so that the
      // distance of two extreme int32 values does not overflow.
      const auto distance = static_cast<uint64_t>(
          delta > T(0) ? static_cast<int64_t>(limit) - static_cast<int64_t>(start)
                       : static_cast<int64_t>(start) - static_cast<int64_t>(limit));
      const auto step = static_cast<uint64_t>(delta > T(0) ? static_cast<int64_t>(delta)
                                                           : -static_cast<int64_t>(delta));
      size = static_cast<int64_t>((distance + step - 1) / step);
    } else {
      const double count = std::ceil(std::fabs(
          (static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta)));
      OP_REQUIRES(ctx, count <= static_cast<double>(std::numeric_limits<int64_t>::max()),
                  ctx->NodeError(errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                                         std::numeric_limits<int64_t>::max())));
      size = static_cast<int64_t>(count);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{size}, &out));
    T* p = out->data<T>();
    // start + i * delta rather than a running sum: no accumulated rounding.
    for (int64_t i = 0; i < size; ++i) p[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  }

 private:
  static Status Scalar(OpKernelContext* ctx, int input, const char* what, T* out) {
    const Tensor& t = ctx->input(input);
    if (t.dims() != 0)
      return ctx->NodeError(
          errors::InvalidArgument(what, " must be a scalar, not shape ", t.shape().DebugString()));
    *out = t.scalar<T>();
    return Status::OK();
  }
};

}  // namespace

#define AF_REGISTER_RANGE(T)                             \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("Range")      \
                              .Device(DEVICE_CPU)        \
                              .TypeConstraint<T>("Tidx") \
                              .HostMemory("start")       \
                              .HostMemory("limit")       \
                              .HostMemory("delta")       \
                              .Expensive(),              \
                          RangeOp<T>)
AF_REGISTER_RANGE(float);
AF_REGISTER_RANGE(double);
AF_REGISTER_RANGE(int8_t);
AF_REGISTER_RANGE(int16_t);
AF_REGISTER_RANGE(int32_t);
AF_REGISTER_RANGE(int64_t);
AF_REGISTER_RANGE(uint16_t);
AF_REGISTER_RANGE(uint32_t);
#undef AF_REGISTER_RANGE

}  // namespace af
