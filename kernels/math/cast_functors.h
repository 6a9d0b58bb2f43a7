// Element conversions for Cast, defined for every value (C++ leaves
// float-to-int overflow undefined; these never are):
//
// - integer -> integer keeps the low bits (two's complement wrap);
// - floating -> integer truncates toward zero. NaN and values outside the
//   32-bit (or, for 64-bit targets, the 64-bit) range give the most negative
//   value, and 8/16-bit targets keep the low bits of the 32-bit result. That
//   is what TensorFlow's CPU kernels produce on x86, where the conversion
//   instructions answer "integer indefinite" out of range;
// - x -> bool is x != 0 (NaN is true); bool -> x is 0 or 1;
// - to half / bfloat16 rounds to nearest even through float;
// - with Truncate=true, floating -> narrower floating drops the extra
//   mantissa bits (rounds toward zero) instead of rounding to nearest.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/types.h"

namespace af::cast {

template <typename T>
constexpr bool kIsHalfLike = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <typename T>
constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsHalfLike<T>;

// Explicit mantissa bits of each floating type.
template <typename T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, double>) return 52;
  if constexpr (std::is_same_v<T, float>) return 23;
  if constexpr (std::is_same_v<T, half>) return 10;
  if constexpr (std::is_same_v<T, bfloat16>) return 7;
  return 0;
}

// Storage bits of a floating value, and back.
template <typename T>
auto Bits(T v) {
  if constexpr (kIsHalfLike<T>) {
    return v.bits;
  } else {
    return std::bit_cast<std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>(v);
  }
}
template <typename T, typename B>
T FromBits(B b) {
  if constexpr (kIsHalfLike<T>) {
    T v;
    v.bits = static_cast<uint16_t>(b);
    return v;
  } else {
    return std::bit_cast<T>(b);
  }
}

// Half and bfloat16 compute as float; other types stay as they are.
template <typename T>
auto Widen(T v) {
  if constexpr (std::is_same_v<T, half>) {
    return HalfToFloat(v);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return BFloat16ToFloat(v);
  } else {
    return v;
  }
}

template <typename I, typename F>
I FloatToInt(F v) {
  if constexpr (std::is_same_v<I, int64_t>) {
    if (!(v >= F(-9223372036854775808.0) && v < F(9223372036854775808.0)))
      return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
  } else if constexpr (std::is_same_v<I, uint64_t>) {
    if (v >= F(9223372036854775808.0) && v < F(18446744073709551616.0))
      return static_cast<uint64_t>(v);
    return static_cast<uint64_t>(FloatToInt<int64_t>(v));
  } else if constexpr (std::is_same_v<I, uint32_t>) {
    return static_cast<uint32_t>(FloatToInt<int64_t>(v));
  } else {
    if (!(v >= F(-2147483648.0) && v < F(2147483648.0)))
      return static_cast<I>(std::numeric_limits<int32_t>::min());
    return static_cast<I>(static_cast<int32_t>(v));
  }
}

// `v` with its mantissa cut to `Dst`'s width, so that the rounding
// conversion that follows is exact (truncation). NaN keeps its payload.
template <typename Dst, typename Src>
Src TruncateMantissa(Src v) {
  constexpr int drop = MantissaBits<Src>() - MantissaBits<Dst>();
  if constexpr (drop <= 0) {
    return v;
  } else {
    // All in integers, NaN test included: GCC 12 at -O1/-O2 dropped the mask
    // when a floating-point NaN test chose between the value and its masked
    // bits (the AND was still in its GIMPLE and gone from the machine code),
    // so Truncate casts rounded instead of truncating in -O2 builds.
    using B = decltype(Bits(v));
    const B all = static_cast<B>(~B{0});
    const B sign = static_cast<B>(all ^ static_cast<B>(all >> 1));
    const B mantissa = static_cast<B>((B{1} << MantissaBits<Src>()) - 1);
    const B exponent = static_cast<B>(all & ~sign & ~mantissa);
    const B mask = static_cast<B>(~((B{1} << drop) - 1));
    const B bits = Bits(v);
    const bool is_nan = static_cast<B>(bits & ~sign) > exponent;
    return FromBits<Src>(is_nan ? bits : static_cast<B>(bits & mask));
  }
}

template <typename Dst, typename Src>
Dst Convert(Src v) {
  const auto w = Widen(v);  // an arithmetic type
  using W = decltype(w);
  if constexpr (std::is_same_v<Dst, bool>) {
    return w != W(0);
  } else if constexpr (std::is_same_v<Dst, half>) {
    return FloatToHalf(static_cast<float>(w));
  } else if constexpr (std::is_same_v<Dst, bfloat16>) {
    return FloatToBFloat16(static_cast<float>(w));
  } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<W>) {
    return FloatToInt<Dst>(w);
  } else {
    return static_cast<Dst>(w);  // int <-> int wraps; anything -> floating
  }
}

template <typename Dst, typename Src>
Dst ConvertTruncating(Src v) {
  if constexpr (kIsFloating<Src> && kIsFloating<Dst>) {
    return Convert<Dst>(TruncateMantissa<Dst>(v));
  } else {
    return Convert<Dst>(v);
  }
}

}  // namespace af::cast
