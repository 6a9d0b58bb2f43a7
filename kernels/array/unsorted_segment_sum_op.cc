// UnsortedSegmentSum: output[i, ...] = sum of data[j..., ...] over the j
// with segment_ids[j...] == i (Gather's gradient). Segments nobody names
// are zero; negative ids are dropped, as TensorFlow does.
#include <complex>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/segment_ids.h"

namespace af {
namespace {

// a += b for every element type, the 16-bit floats through float.
template <typename T>
inline void AddTo(T* a, const T& b) {
  if constexpr (std::is_same_v<T, half>)
    *a = FloatToHalf(HalfToFloat(*a) + HalfToFloat(b));
  else if constexpr (std::is_same_v<T, bfloat16>)
    *a = FloatToBFloat16(BFloat16ToFloat(*a) + BFloat16ToFloat(b));
  else
    *a = static_cast<T>(*a + b);
}

template <typename T, typename Index>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    SegmentLayout layout;
    OP_REQUIRES_OK(ctx, CheckUnsortedSegmentArgs(ctx, &layout));
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const int64_t num = layout.num_segments;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, layout.output_shape, &out));
    T* o = out->data<T>();
    std::fill_n(o, layout.output_shape.num_elements(), T{});
    const int64_t inner = layout.inner;
    const Index* id = ids.data<Index>();
    const T* in = data.data<T>();
    for (int64_t j = 0; j < ids.NumElements(); ++j) {
      const auto segment = static_cast<int64_t>(id[j]);
      if (segment < 0) continue;
      OP_REQUIRES(ctx, segment < num, SegmentIdOutOfRange(ctx, ids, j, segment, num));
      T* row = o + segment * inner;
      const T* src = in + j * inner;
      for (int64_t i = 0; i < inner; ++i) AddTo(row + i, src[i]);
    }
  }
};

}  // namespace

#define AF_REGISTER_SEGMENT_SUM_INDEX(T, Index)                  \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("UnsortedSegmentSum") \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("T")            \
                              .TypeConstraint<Index>("Tindices") \
                              .HostMemory("num_segments")        \
                              .Expensive(),                      \
                          UnsortedSegmentSumOp<T, Index>)
#define AF_REGISTER_SEGMENT_SUM(T)           \
  AF_REGISTER_SEGMENT_SUM_INDEX(T, int32_t); \
  AF_REGISTER_SEGMENT_SUM_INDEX(T, int64_t)
AF_REGISTER_SEGMENT_SUM(float);
AF_REGISTER_SEGMENT_SUM(double);
AF_REGISTER_SEGMENT_SUM(half);
AF_REGISTER_SEGMENT_SUM(bfloat16);
AF_REGISTER_SEGMENT_SUM(int8_t);
AF_REGISTER_SEGMENT_SUM(uint8_t);
AF_REGISTER_SEGMENT_SUM(int16_t);
AF_REGISTER_SEGMENT_SUM(uint16_t);
AF_REGISTER_SEGMENT_SUM(int32_t);
AF_REGISTER_SEGMENT_SUM(uint32_t);
AF_REGISTER_SEGMENT_SUM(int64_t);
AF_REGISTER_SEGMENT_SUM(uint64_t);
AF_REGISTER_SEGMENT_SUM(complex64);
AF_REGISTER_SEGMENT_SUM(complex128);
#undef AF_REGISTER_SEGMENT_SUM
#undef AF_REGISTER_SEGMENT_SUM_INDEX

}  // namespace af
