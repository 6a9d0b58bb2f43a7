// Unique and UniqueWithCounts over a vector x: y = x's distinct values in
// the order they first appear, idx[j] = the position of x[j] in y, and
// (WithCounts) count[k] = how many x[j] equal y[k].
//
// Equality is the element type's ==, hashed with std::hash, as TensorFlow
// does: 0.0 and -0.0 are one value (the first seen is kept), and every NaN
// is its own value since NaN != NaN.
#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

template <typename T, typename Index>
class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                ctx->NodeError(errors::InvalidArgument("unique expects a 1D vector, got shape ",
                                                       x.shape().DebugString())));
    const int64_t n = x.NumElements();
    OP_REQUIRES(
        ctx, n <= static_cast<int64_t>(std::numeric_limits<Index>::max()),
        ctx->NodeError(errors::InvalidArgument(
            "unique does not support input tensors larger than ", std::numeric_limits<Index>::max(),
            " elements with out_idx ", DataTypeString(DataTypeToEnum<Index>::value))));
    Tensor* idx_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape{n}, &idx_out));
    const T* in = x.data<T>();
    Index* idx = idx_out->data<Index>();

    // Keys point into x, which outlives the map: no copies of strings.
    std::unordered_map<std::reference_wrapper<const T>, Index, Hash, Equal> position;
    position.reserve(static_cast<size_t>(n));
    std::vector<int64_t> first;  // x position of each y element
    for (int64_t j = 0; j < n; ++j) {
      const auto next = static_cast<Index>(first.size());
      auto [it, inserted] = position.try_emplace(std::cref(in[j]), next);
      if (inserted) first.push_back(j);
      idx[j] = it->second;
    }

    const auto num_unique = static_cast<int64_t>(first.size());
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{num_unique}, &y));
    T* out = y->data<T>();
    for (int64_t k = 0; k < num_unique; ++k) out[k] = in[first[static_cast<size_t>(k)]];

    if (ctx->num_outputs() < 3) return;
    Tensor* count_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape{num_unique}, &count_out));
    Index* count = count_out->data<Index>();
    std::fill_n(count, num_unique, Index{0});
    for (int64_t j = 0; j < n; ++j) ++count[idx[j]];
  }

 private:
  struct Hash {
    size_t operator()(const std::reference_wrapper<const T>& v) const {
      return std::hash<T>{}(v.get());
    }
  };
  struct Equal {
    bool operator()(const std::reference_wrapper<const T>& a,
                    const std::reference_wrapper<const T>& b) const {
      return a.get() == b.get();
    }
  };
};

}  // namespace

#define AF_REGISTER_UNIQUE_INDEX(T, Index)                      \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("Unique")            \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<Index>("out_idx") \
                              .Expensive(),                     \
                          UniqueOp<T, Index>);                  \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("UniqueWithCounts")  \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<Index>("out_idx") \
                              .Expensive(),                     \
                          UniqueOp<T, Index>)
#define AF_REGISTER_UNIQUE(T)           \
  AF_REGISTER_UNIQUE_INDEX(T, int32_t); \
  AF_REGISTER_UNIQUE_INDEX(T, int64_t)
AF_REGISTER_UNIQUE(float);
AF_REGISTER_UNIQUE(double);
AF_REGISTER_UNIQUE(int8_t);
AF_REGISTER_UNIQUE(uint8_t);
AF_REGISTER_UNIQUE(int16_t);
AF_REGISTER_UNIQUE(uint16_t);
AF_REGISTER_UNIQUE(int32_t);
AF_REGISTER_UNIQUE(int64_t);
AF_REGISTER_UNIQUE(bool);
AF_REGISTER_UNIQUE(std::string);
#undef AF_REGISTER_UNIQUE
#undef AF_REGISTER_UNIQUE_INDEX

}  // namespace af
