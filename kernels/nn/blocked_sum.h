// Sums with eight independent accumulators. A single accumulator makes
// every add wait for the previous one (4 cycles each); eight let the adds
// overlap and let the compiler vectorize, without -ffast-math. The order is
// fixed by n alone, so results do not depend on threads or alignment.
#pragma once

#include <cstdint>

namespace af {

// sum over i of f(x[i]), accumulated in Acc.
template <typename Acc, typename T, typename F>
Acc BlockedSum(const T* x, int64_t n, F f) {
  constexpr int kLanes = 8;
  Acc lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] += f(Acc(x[i + l]));
  Acc tail = Acc(0);
  for (; i < n; ++i) tail += f(Acc(x[i]));
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])) +
         tail;
}

template <typename Acc, typename T>
Acc BlockedSum(const T* x, int64_t n) {
  return BlockedSum<Acc>(x, n, [](Acc v) { return v; });
}

}  // namespace af
