// The type a gradient of type T is summed in: T itself, except half, whose
// sums would lose precision gradient by gradient; they are kept in float
// and rounded once, when taken.
#pragma once

#include "core/types.h"

namespace af::actors {

template <typename T>
struct SumType {
  using type = T;
  static type Load(T v) { return v; }
  static T Store(type v) { return v; }
};

template <>
struct SumType<half> {
  using type = float;
  static float Load(half v) { return HalfToFloat(v); }
  static half Store(float v) { return FloatToHalf(v); }
};

}  // namespace af::actors
