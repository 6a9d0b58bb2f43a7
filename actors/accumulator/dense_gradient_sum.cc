#include "actors/accumulator/dense_gradient_sum.h"

#include <type_traits>
#include <utility>

#include "actors/accumulator/sum_type.h"
#include "core/allocator.h"

namespace af::actors {
namespace {

template <typename T>
class DenseGradientSum final : public GradientSum {
  using Sum = SumType<T>;
  using S = typename Sum::type;

 public:
  explicit DenseGradientSum(const AccumulatorSpec& spec) : spec_(spec) {}

  Status Add(const AccumulatorGradient& gradient) override {
    const Tensor& g = gradient.dense;
    if (g.dtype() != spec_.dtype || !g.IsInitialized()) {
      return errors::InvalidArgument("expected an initialized ", DataTypeString(spec_.dtype),
                                     " gradient, got ", DataTypeString(g.dtype()));
    }
    // Both checks are TensorFlow's: the shape of the gradients held (until
    // the next take), and the attr, whose unknown dims accept any size.
    if (count_ > 0 && g.shape() != sum_.shape()) {
      return errors::InvalidArgument("Shape mismatch: expected ", sum_.shape().DebugString(),
                                     ", got ", g.shape().DebugString());
    }
    if (!spec_.shape.IsCompatibleWith(g.shape())) {
      return errors::InvalidArgument("Shape mismatch: expected ", spec_.shape.DebugString(),
                                     ", got ", g.shape().DebugString());
    }
    const int64_t n = g.NumElements();
    const T* in = g.data<T>();
    if (count_ == 0) {
      // A fresh buffer: the previous one went out with the last take.
      AF_RETURN_IF_ERROR(
          Tensor::Allocate(GetCpuAllocator(), DataTypeToEnum<S>::value, g.shape(), &sum_));
      S* s = sum_.data<S>();
      for (int64_t i = 0; i < n; ++i) s[i] = Sum::Load(in[i]);
    } else {
      S* s = sum_.data<S>();
      for (int64_t i = 0; i < n; ++i) s[i] += Sum::Load(in[i]);
    }
    ++count_;
    return Status::OK();
  }

  Status Take(AccumulatorGradient* out) override {
    const bool mean = spec_.reduction == AccumulatorSpec::Reduction::kMean;
    const S divisor = static_cast<S>(count_);
    const int64_t n = sum_.NumElements();
    Tensor result;
    if constexpr (std::is_same_v<S, T>) {
      // The sum's buffer becomes the result: no copy.
      if (mean) {
        S* s = sum_.data<S>();
        for (int64_t i = 0; i < n; ++i) s[i] /= divisor;
      }
      result = std::move(sum_);
    } else {
      AF_RETURN_IF_ERROR(Tensor::Allocate(GetCpuAllocator(), spec_.dtype, sum_.shape(), &result));
      const S* s = sum_.data<S>();
      T* r = result.data<T>();
      for (int64_t i = 0; i < n; ++i) r[i] = Sum::Store(mean ? s[i] / divisor : s[i]);
    }
    sum_ = Tensor();
    count_ = 0;
    out->dense = std::move(result);
    return Status::OK();
  }

 private:
  const AccumulatorSpec spec_;
  Tensor sum_;  // of type S; valid while count_ > 0
};

}  // namespace

std::unique_ptr<GradientSum> MakeDenseGradientSum(const AccumulatorSpec& spec) {
  switch (spec.dtype) {
    case DT_HALF: return std::make_unique<DenseGradientSum<half>>(spec);
    case DT_FLOAT: return std::make_unique<DenseGradientSum<float>>(spec);
    case DT_DOUBLE: return std::make_unique<DenseGradientSum<double>>(spec);
    default: return nullptr;
  }
}

}  // namespace af::actors
