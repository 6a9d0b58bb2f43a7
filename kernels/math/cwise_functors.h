// Scalar functors for the element-wise kernels. Each names its input and
// output element types so one kernel template serves arithmetic,
// comparisons and logic alike.
//
// Signed integer arithmetic is done in the unsigned type of the same width,
// so overflow wraps (as TensorFlow's kernels do in practice) instead of being
// undefined behaviour; the generated code is the same.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace af::functor {

namespace internal {
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
}  // namespace internal

template <typename T>
inline T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrappingSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
inline T WrappingNeg(T a) {
  return WrappingSub(T(0), a);
}

template <typename T, typename R = T>
struct BinaryFunctorBase {
  using in_type = T;
  using out_type = R;
  // Integer division must reject a zero divisor before running.
  static constexpr bool kRejectsZeroDivisor = false;
};

template <typename T>
struct Add : BinaryFunctorBase<T> {
  T operator()(T a, T b) const { return WrappingAdd(a, b); }
};
template <typename T>
struct Sub : BinaryFunctorBase<T> {
  T operator()(T a, T b) const { return WrappingSub(a, b); }
};
template <typename T>
struct Mul : BinaryFunctorBase<T> {
  T operator()(T a, T b) const { return WrappingMul(a, b); }
};

// Floating division, or integer division truncating toward zero (C++ and
// TensorFlow's Div on integers). Integer kernels check for zero divisors
// first; MIN / -1 wraps to MIN instead of trapping.
template <typename T>
struct Div : BinaryFunctorBase<T> {
  static constexpr bool kRejectsZeroDivisor = std::is_integral_v<T>;
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return WrappingNeg(a);
      }
      return static_cast<T>(a / b);
    } else {
      return a / b;
    }
  }
};

// NaN-propagating, as TensorFlow's Maximum and Minimum.
template <typename T>
struct Maximum : BinaryFunctorBase<T> {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (a > b || a != a) ? a : b;
    } else {
      return a > b ? a : b;
    }
  }
};
template <typename T>
struct Minimum : BinaryFunctorBase<T> {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (a < b || a != a) ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
};

template <typename T>
struct Less : BinaryFunctorBase<T, bool> {
  bool operator()(T a, T b) const { return a < b; }
};
template <typename T>
struct LessEqual : BinaryFunctorBase<T, bool> {
  bool operator()(T a, T b) const { return a <= b; }
};
template <typename T>
struct Greater : BinaryFunctorBase<T, bool> {
  bool operator()(T a, T b) const { return a > b; }
};
template <typename T>
struct GreaterEqual : BinaryFunctorBase<T, bool> {
  bool operator()(T a, T b) const { return a >= b; }
};
template <typename T>
struct EqualTo : BinaryFunctorBase<T, bool> {
  // What Equal yields when shapes do not broadcast and the node asks for a
  // value instead of an error (incompatible_shape_error=false).
  static constexpr bool kIncompatibleShapeValue = false;
  bool operator()(T a, T b) const { return a == b; }
};
template <typename T>
struct NotEqualTo : BinaryFunctorBase<T, bool> {
  static constexpr bool kIncompatibleShapeValue = true;
  bool operator()(T a, T b) const { return a != b; }
};

struct LogicalAnd : BinaryFunctorBase<bool> {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOr : BinaryFunctorBase<bool> {
  bool operator()(bool a, bool b) const { return a || b; }
};

// Unary functors.
template <typename T>
struct Neg {
  using in_type = T;
  using out_type = T;
  T operator()(T a) const { return WrappingNeg(a); }
};
template <typename T>
struct Square {
  using in_type = T;
  using out_type = T;
  T operator()(T a) const { return WrappingMul(a, a); }
};
struct LogicalNot {
  using in_type = bool;
  using out_type = bool;
  bool operator()(bool a) const { return !a; }
};
// max(x, 0); NaN stays NaN.
template <typename T>
struct Relu {
  using in_type = T;
  using out_type = T;
  T operator()(T a) const { return a < T(0) ? T(0) : a; }
};

}  // namespace af::functor
