// Floating-point element-wise functors: the transcendental unary ops and the
// gradient helpers TensorFlow's autodiff emits for them (inputs y, the
// forward op's output, and dy, the incoming gradient).
//
// The unary ops run over whole runs through Eigen's array functions (`Apply`),
// which are vectorized with the same polynomial approximations TensorFlow's
// CPU kernels use; operator() is the scalar definition, used for reference.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/eigen_core.h"

namespace af::functor {

// n elements at x (or z) as an Eigen array.
template <typename T>
Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> ArrayView(const T* x, int64_t n) {
  return {x, n};
}
template <typename T>
Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> ArrayView(T* z, int64_t n) {
  return {z, n};
}

// Functors with a vectorized `Apply` may also say, with `VectorExact(x)`,
// for which arguments that vector path is exact; the kernel recomputes the
// others with the scalar definition (cwise_op_kernels.h). The predicates are
// plain comparisons so that the check itself vectorizes.

// Eigen's vectorized exp clamps its argument to about +-88.7 (float) and
// +-709.8 (double) and returns max(result, x): exp(-inf) came out as the
// clamp's denormal on AVX2 and exp(710) as a finite number. Inside these
// bounds the result is a normal number and the approximation holds.
template <typename T>
constexpr T kVectorExpExactBound = std::is_same_v<T, float> ? T(87) : T(708);

// A normal, finite number of either sign (false for 0, denormals, inf, NaN).
// Eigen's float sqrt and rsqrt (fast-math, rsqrt-based) give NaN for +inf
// and flush denormals to zero.
template <typename T>
bool IsNormal(T a) {
  const T m = std::abs(a);
  return m >= std::numeric_limits<T>::min() && m <= std::numeric_limits<T>::max();
}

template <typename T>
struct FloatUnaryBase {
  using in_type = T;
  using out_type = T;
};

template <typename T>
struct Sqrt : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 4;
  T operator()(T a) const { return std::sqrt(a); }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).sqrt(); }
  static bool VectorExact(T a) { return IsNormal(a); }
};
template <typename T>
struct Rsqrt : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 8;
  T operator()(T a) const { return T(1) / std::sqrt(a); }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).rsqrt(); }
  static bool VectorExact(T a) { return IsNormal(a); }
};
template <typename T>
struct Exp : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 20;
  T operator()(T a) const { return std::exp(a); }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).exp(); }
  static bool VectorExact(T a) { return std::abs(a) <= kVectorExpExactBound<T>; }
};
template <typename T>
struct Log : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 20;
  T operator()(T a) const { return std::log(a); }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).log(); }
  // Eigen's log raises denormal arguments to the smallest normal number.
  static bool VectorExact(T a) { return !(a > T(0) && a < std::numeric_limits<T>::min()); }
};
template <typename T>
struct Log1p : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 25;
  T operator()(T a) const { return std::log1p(a); }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).log1p(); }
};
template <typename T>
struct Tanh : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 30;
  T operator()(T a) const { return std::tanh(a); }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).tanh(); }
};
// 1 / (1 + e^-x). The scalar form never overflows (it uses e^x / (1 + e^x)
// for negative x) and is the reference past the vector path's clamp.
template <typename T>
struct Sigmoid : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 25;
  T operator()(T a) const {
    if (a < T(0)) {  // e^a / (1 + e^a) keeps the denormal tail e^-a would lose
      const T e = std::exp(a);
      return e / (T(1) + e);
    }
    return T(1) / (T(1) + std::exp(-a));
  }
  static void Apply(const T* x, T* z, int64_t n) { ArrayView(z, n) = ArrayView(x, n).logistic(); }
  // Eigen's logistic clamps like its exp; below the bound the result is
  // denormal or 0, above it exactly 1 either way.
  static bool VectorExact(T a) { return a >= -kVectorExpExactBound<T>; }
};
template <typename T>
struct Reciprocal : FloatUnaryBase<T> {
  static constexpr int64_t kCost = 4;
  T operator()(T a) const { return T(1) / a; }
};

// Gradient helpers: z = f(y, dy), same-size inputs, no broadcasting.
template <typename T>
struct GradBase {
  using in_type = T;
  using out_type = T;
};

// d sigmoid = y (1 - y)
template <typename T>
struct SigmoidGrad : GradBase<T> {
  T operator()(T y, T dy) const { return dy * (y * (T(1) - y)); }
};
// d tanh = 1 - y^2
template <typename T>
struct TanhGrad : GradBase<T> {
  T operator()(T y, T dy) const { return dy * (T(1) - y * y); }
};
// d sqrt(x) = 1 / (2 sqrt(x)) = 0.5 / y
template <typename T>
struct SqrtGrad : GradBase<T> {
  static constexpr int64_t kCost = 4;
  T operator()(T y, T dy) const { return (T(0.5) * dy) / y; }
};
// d x^-1/2 = -1/2 x^-3/2 = -0.5 y^3
template <typename T>
struct RsqrtGrad : GradBase<T> {
  T operator()(T y, T dy) const { return (T(-0.5) * dy) * (y * y * y); }
};
// d 1/x = -1/x^2 = -y^2
template <typename T>
struct ReciprocalGrad : GradBase<T> {
  T operator()(T y, T dy) const { return -dy * (y * y); }
};

}  // namespace af::functor
