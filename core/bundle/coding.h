// The integer encodings of LevelDB-format tables and tensor bundles:
// little-endian fixed32/fixed64 and base-128 varints. Decoders never read
// past `end` and report malformed input by returning false, so every caller
// can turn a bad byte into DATA_LOSS instead of crashing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace af::bundle {

inline void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutFixed64(std::string* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}
inline void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

inline uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{u[0]} | (uint32_t{u[1]} << 8) | (uint32_t{u[2]} << 16) | (uint32_t{u[3]} << 24);
}
inline uint64_t DecodeFixed64(const char* p) {
  return uint64_t{DecodeFixed32(p)} | (uint64_t{DecodeFixed32(p + 4)} << 32);
}

// Reads a varint from the front of `in`, advancing it. False for a
// truncated varint or one longer than 10 bytes (or above 2^32 for the
// 32-bit form).
inline bool GetVarint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    const auto byte = static_cast<unsigned char>((*in)[i]);
    result |= uint64_t{byte & 0x7fu} << (7 * i);
    if (byte < 0x80) {
      if (i == 9 && byte > 1) return false;  // more than 64 bits
      in->remove_prefix(i + 1);
      *v = result;
      return true;
    }
  }
  return false;
}
inline bool GetVarint32(std::string_view* in, uint32_t* v) {
  uint64_t wide;
  if (!GetVarint64(in, &wide) || wide > 0xffffffffu) return false;
  *v = static_cast<uint32_t>(wide);
  return true;
}

}  // namespace af::bundle
