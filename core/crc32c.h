// CRC-32C (Castagnoli): the checksum of checkpoints and of TFRecord framing.
// Uses the SSE4.2 crc32 instruction when the build targets it, a table
// otherwise; both give the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace af::crc32c {

// The CRC of data appended to data whose CRC was `crc` (0 for nothing), so
// that Extend(Value(a), b) == Value(a + b).
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(std::string_view s) { return Value(s.data(), s.size()); }

// TFRecord stores CRCs masked, because a CRC of data that itself contains
// CRCs is weak; the mask is a rotation plus a constant.
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace af::crc32c
