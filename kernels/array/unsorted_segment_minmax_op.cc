// UnsortedSegmentMax and UnsortedSegmentMin: output[i, ...] = the max (min)
// of data[j..., ...] over the j with segment_ids[j...] == i. A segment no id
// names holds numeric_limits<T>::lowest() (max()), as TensorFlow documents;
// negative ids are dropped.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/segment_ids.h"

namespace af {
namespace {

// A NaN wins and then stays: a plain `v > acc` test would drop a NaN that
// arrives after a number but keep one that arrives first, so the result
// would depend on row order.
template <typename T>
inline bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

template <typename T>
struct MaxReducer {
  static T Identity() { return std::numeric_limits<T>::lowest(); }
  static void Combine(T* acc, T v) {
    if (!IsNan(*acc) && (v > *acc || IsNan(v))) *acc = v;
  }
};

template <typename T>
struct MinReducer {
  static T Identity() { return std::numeric_limits<T>::max(); }
  static void Combine(T* acc, T v) {
    if (!IsNan(*acc) && (v < *acc || IsNan(v))) *acc = v;
  }
};

template <typename T, typename Index, typename Reducer>
class UnsortedSegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    SegmentLayout layout;
    OP_REQUIRES_OK(ctx, CheckUnsortedSegmentArgs(ctx, &layout));
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, layout.output_shape, &out));
    T* o = out->data<T>();
    std::fill_n(o, layout.output_shape.num_elements(), Reducer::Identity());
    const int64_t inner = layout.inner;
    const Index* id = ids.data<Index>();
    const T* in = data.data<T>();
    for (int64_t j = 0; j < ids.NumElements(); ++j) {
      const auto segment = static_cast<int64_t>(id[j]);
      if (segment < 0) continue;
      OP_REQUIRES(ctx, segment < layout.num_segments,
                  SegmentIdOutOfRange(ctx, ids, j, segment, layout.num_segments));
      T* row = o + segment * inner;
      const T* src = in + j * inner;
      for (int64_t i = 0; i < inner; ++i) Reducer::Combine(row + i, src[i]);
    }
  }
};

}  // namespace

#define AF_REGISTER_SEGMENT_MINMAX_INDEX(T, Index)                              \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("UnsortedSegmentMax")                \
                              .Device(DEVICE_CPU)                               \
                              .TypeConstraint<T>("T")                           \
                              .TypeConstraint<Index>("Tindices")                \
                              .HostMemory("num_segments")                       \
                              .Expensive(),                                     \
                          UnsortedSegmentReductionOp<T, Index, MaxReducer<T>>); \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("UnsortedSegmentMin")                \
                              .Device(DEVICE_CPU)                               \
                              .TypeConstraint<T>("T")                           \
                              .TypeConstraint<Index>("Tindices")                \
                              .HostMemory("num_segments")                       \
                              .Expensive(),                                     \
                          UnsortedSegmentReductionOp<T, Index, MinReducer<T>>)
#define AF_REGISTER_SEGMENT_MINMAX(T)           \
  AF_REGISTER_SEGMENT_MINMAX_INDEX(T, int32_t); \
  AF_REGISTER_SEGMENT_MINMAX_INDEX(T, int64_t)
AF_REGISTER_SEGMENT_MINMAX(float);
AF_REGISTER_SEGMENT_MINMAX(double);
AF_REGISTER_SEGMENT_MINMAX(int8_t);
AF_REGISTER_SEGMENT_MINMAX(uint8_t);
AF_REGISTER_SEGMENT_MINMAX(int16_t);
AF_REGISTER_SEGMENT_MINMAX(uint16_t);
AF_REGISTER_SEGMENT_MINMAX(int32_t);
AF_REGISTER_SEGMENT_MINMAX(uint32_t);
AF_REGISTER_SEGMENT_MINMAX(int64_t);
AF_REGISTER_SEGMENT_MINMAX(uint64_t);
#undef AF_REGISTER_SEGMENT_MINMAX
#undef AF_REGISTER_SEGMENT_MINMAX_INDEX

}  // namespace af
