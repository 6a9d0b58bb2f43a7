// Turning Philox blocks into samples. Each distribution fills a fixed-size
// group of outputs from blocks it owns (kBlocksPerGroup of them, starting at
// group * kBlocksPerGroup), so a sample's value depends only on its index.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <type_traits>

#include "core/types.h"
#include "kernels/random/philox.h"

namespace af::random {

// [0, 1) with 23 random mantissa bits.
inline float Uint32ToUnitFloat(uint32_t x) {
  const uint32_t bits = (x & 0x7FFFFFu) | 0x3F800000u;  // [1, 2)
  float f;
  std::memcpy(&f, &bits, 4);
  return f - 1.0f;
}

// [0, 1) with 52 random mantissa bits.
inline double Uint64ToUnitDouble(uint32_t hi, uint32_t lo) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  const uint64_t bits = (x & 0xFFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double d;
  std::memcpy(&d, &bits, 8);
  return d - 1.0;
}

// How samples of the 16-bit types come out of float samples. Uniform values
// keep only as many bits as the type holds, so rounding never reaches 1.
template <typename T>
inline T FromFloat(float f) {
  if constexpr (std::is_same_v<T, half>) {
    return FloatToHalf(f);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return FloatToBFloat16(f);
  } else {
    return static_cast<T>(f);
  }
}

template <typename T>
inline T UnitSample(uint32_t x) {
  if constexpr (std::is_same_v<T, half>) {
    return FloatToHalf(static_cast<float>(x & 0x3FFu) * (1.0f / 1024.0f));
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return FloatToBFloat16(static_cast<float>(x & 0x7Fu) * (1.0f / 128.0f));
  } else {
    return Uint32ToUnitFloat(x);
  }
}

// Box-Muller: two uniforms, two independent standard normals. u1 is taken
// from (0, 1] so that the log is finite.
template <typename F>
inline void BoxMuller(F u1, F u2, F* z0, F* z1) {
  const F r = std::sqrt(F(-2) * std::log(F(1) - u1));
  const F theta = F(2) * std::numbers::pi_v<F> * u2;
  *z0 = r * std::cos(theta);
  *z1 = r * std::sin(theta);
}

template <typename T>
struct UniformDistribution {
  static constexpr bool kIsDouble = std::is_same_v<T, double>;
  static constexpr int kGroupSize = kIsDouble ? 2 : 4;
  static constexpr int kBlocksPerGroup = 1;
  static constexpr int kCyclesPerGroup = 60;

  void operator()(const PhiloxStream& s, uint64_t first_block, T* out) const {
    const PhiloxBlock b = s.Block(first_block);
    if constexpr (kIsDouble) {
      out[0] = Uint64ToUnitDouble(b[0], b[1]);
      out[1] = Uint64ToUnitDouble(b[2], b[3]);
    } else {
      for (int i = 0; i < 4; ++i) out[i] = UnitSample<T>(b[i]);
    }
  }
};

template <typename T>
struct NormalDistribution {
  static constexpr bool kIsDouble = std::is_same_v<T, double>;
  static constexpr int kGroupSize = kIsDouble ? 2 : 4;
  static constexpr int kBlocksPerGroup = 1;
  static constexpr int kCyclesPerGroup = 200;

  void operator()(const PhiloxStream& s, uint64_t first_block, T* out) const {
    const PhiloxBlock b = s.Block(first_block);
    if constexpr (kIsDouble) {
      BoxMuller(Uint64ToUnitDouble(b[0], b[1]), Uint64ToUnitDouble(b[2], b[3]), &out[0],
                &out[1]);
    } else {
      float z[4];
      BoxMuller(Uint32ToUnitFloat(b[0]), Uint32ToUnitFloat(b[1]), &z[0], &z[1]);
      BoxMuller(Uint32ToUnitFloat(b[2]), Uint32ToUnitFloat(b[3]), &z[2], &z[3]);
      for (int i = 0; i < 4; ++i) out[i] = FromFloat<T>(z[i]);
    }
  }
};

// Standard normals redrawn until within two standard deviations. A group
// owns kBlocksPerGroup blocks; each block yields a group's worth of
// candidates and about 95% are kept, so running out is beyond unlikely (and
// even then the group reads on deterministically).
template <typename T>
struct TruncatedNormalDistribution {
  static constexpr bool kIsDouble = std::is_same_v<T, double>;
  static constexpr int kGroupSize = kIsDouble ? 2 : 4;
  static constexpr int kBlocksPerGroup = 16;
  static constexpr int kCyclesPerGroup = 250;
  using Compute = std::conditional_t<kIsDouble, double, float>;

  void operator()(const PhiloxStream& s, uint64_t first_block, T* out) const {
    int filled = 0;
    for (uint64_t block = first_block; filled < kGroupSize; ++block) {
      NormalDistribution<Compute> normal;
      Compute z[NormalDistribution<Compute>::kGroupSize];
      normal(s, block, z);
      for (int i = 0; i < NormalDistribution<Compute>::kGroupSize && filled < kGroupSize; ++i) {
        if (!(std::fabs(z[i]) < Compute(2))) continue;
        if constexpr (kIsDouble) {
          out[filled++] = z[i];
        } else {
          out[filled++] = FromFloat<T>(z[i]);
        }
      }
    }
  }
};

}  // namespace af::random
