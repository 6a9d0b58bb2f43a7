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

#include "core/status.h"

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
  if constexpr (std::is_integral_v<T>) {
    return WrappingSub(T(0), a);
  } else {
    return -a;  // not 0 - a, which turns -0 into +0 where TensorFlow gives -0
  }
}

// Rough cycles per element, for deciding when to split work over threads.
// Functors that cost more than an add say so with `kCost`.
template <typename F>
constexpr int64_t CostPerElement() {
  if constexpr (requires { F::kCost; }) {
    return F::kCost;
  } else {
    return 1;
  }
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

// Division rounding toward negative infinity (Python's //). Integer kernels
// reject zero divisors first; MIN // -1 wraps to MIN.
template <typename T>
struct FloorDiv : BinaryFunctorBase<T> {
  static constexpr bool kRejectsZeroDivisor = std::is_integral_v<T>;
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return WrappingNeg(a);
        const T quotient = static_cast<T>(a / b);
        // C++ truncates toward zero: an inexact negative quotient is one too big.
        const bool inexact_negative = a % b != 0 && ((a < 0) != (b < 0));
        return inexact_negative ? static_cast<T>(quotient - 1) : quotient;
      } else {
        return static_cast<T>(a / b);
      }
    } else {
      return std::floor(a / b);
    }
  }
};

// The remainder matching FloorDiv (Python's %): it takes the divisor's sign,
// so FloorDiv(a, b) * b + FloorMod(a, b) == a.
template <typename T>
struct FloorMod : BinaryFunctorBase<T> {
  static constexpr bool kRejectsZeroDivisor = std::is_integral_v<T>;
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);  // MIN % -1 traps in C++
        const T r = static_cast<T>(a % b);
        return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
      } else {
        return static_cast<T>(a % b);
      }
    } else {
      const T r = std::fmod(a, b);
      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    }
  }
};

// x ** y. Floating point follows std::pow (a negative base with a
// non-integer exponent is NaN). Integers square-and-multiply with wrapping,
// and negative exponents are rejected before the loop, as TensorFlow does.
template <typename T>
struct Pow : BinaryFunctorBase<T> {
  static constexpr int64_t kCost = std::is_integral_v<T> ? 8 : 40;
  static Status ValidateRhs(const T* y, int64_t n) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      for (int64_t i = 0; i < n; ++i)
        if (y[i] < 0)
          return errors::InvalidArgument("Integers to negative integer powers are not allowed");
    }
    (void)y;
    (void)n;
    return Status::OK();
  }
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      T result = 1;
      T base = a;
      for (auto e = b; e > 0; e /= 2) {
        if (e & 1) result = WrappingMul(result, base);
        base = WrappingMul(base, base);
      }
      return result;
    } else {
      return std::pow(a, b);
    }
  }
};

// NaN-propagating, as TensorFlow's Maximum and Minimum.
template <typename T>
struct Maximum : BinaryFunctorBase<T> {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      // Bitwise | (no short circuit) keeps this a compare-and-blend the
      // compiler vectorizes.
      return ((a > b) | (a != a)) ? a : b;
    } else {
      return a > b ? a : b;
    }
  }
};
template <typename T>
struct Minimum : BinaryFunctorBase<T> {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return ((a < b) | (a != a)) ? a : b;
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
// |x|; the most negative integer wraps to itself.
template <typename T>
struct Abs {
  using in_type = T;
  using out_type = T;
  T operator()(T a) const {
    if constexpr (std::is_integral_v<T>) {
      return a < T(0) ? WrappingNeg(a) : a;
    } else {
      return std::fabs(a);
    }
  }
};
// -1, 0 or 1; NaN stays NaN and both zeros give 0.
template <typename T>
struct Sign {
  using in_type = T;
  using out_type = T;
  T operator()(T a) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
    }
    return static_cast<T>((T(0) < a) - (a < T(0)));
  }
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
