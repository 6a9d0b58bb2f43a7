// Philox-4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011): a counter-based generator. Block k of a
// stream is a pure function of (key, counter k), so any thread can compute
// any part of a stream and the numbers never depend on how work is split.
#pragma once

#include <array>
#include <cstdint>

namespace af::random {

using PhiloxBlock = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

namespace philox_internal {
inline constexpr uint32_t kMultiplier0 = 0xD2511F53u;
inline constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
inline constexpr uint32_t kKeyBump0 = 0x9E3779B9u;  // golden ratio
inline constexpr uint32_t kKeyBump1 = 0xBB67AE85u;  // sqrt(3) - 1

inline PhiloxBlock Round(const PhiloxBlock& c, const PhiloxKey& k) {
  const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}
}  // namespace philox_internal

// Ten rounds of the Philox-4x32 bijection of `counter` under `key`.
inline PhiloxBlock Philox4x32_10(PhiloxBlock counter, PhiloxKey key) {
  using namespace philox_internal;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kKeyBump0;
      key[1] += kKeyBump1;
    }
    counter = Round(counter, key);
  }
  return counter;
}

// A stream of blocks: the key comes from `seed`; the counter's high 64 bits
// are `stream` and its low 64 bits the block's index.
struct PhiloxStream {
  PhiloxKey key{};
  uint64_t stream = 0;

  PhiloxStream() = default;
  PhiloxStream(uint64_t seed, uint64_t stream_id)
      : key{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}, stream(stream_id) {}

  PhiloxBlock Block(uint64_t index) const {
    return Philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                          static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
                         key);
  }
};

}  // namespace af::random
