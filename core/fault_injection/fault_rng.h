// FaultRng: the random stream behind injected faults. SplitMix64 rather
// than <random>'s engines and distributions: the standard fixes mt19937's
// output but not what std::exponential_distribution and friends make of
// it, so only a generator and inverse-CDF sampling written here give the
// same faults for the same seed on every standard library.
#pragma once

#include <cstdint>
#include <string_view>

namespace af::faults {

// One SplitMix64 step as a pure function: also how seeds are derived, so
// that nearby seeds (7, 8) still give unrelated streams.
constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// FNV-1a: folds a task name into its seed, so that every task of a
// cluster configured by one spec draws its own faults.
constexpr uint64_t HashName(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

class FaultRng {
 public:
  explicit FaultRng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return Mix64(state_);
  }
  // Uniform in the open interval (0, 1): never 0 (logarithms of it are
  // taken) and never 1 (Pareto divides by it).
  double Uniform() { return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace af::faults
