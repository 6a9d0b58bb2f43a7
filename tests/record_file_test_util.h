// Record files written byte by byte for reader tests: TFRecord framing and
// big-endian fields of IDX headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/io/record_writer.h"

namespace af::testing {

// The payloads as one TFRecord file (length, masked CRCs, data).
inline std::string TFRecords(const std::vector<std::string>& payloads) {
  std::string out;
  for (const auto& p : payloads) AppendRecord(p, &out);
  return out;
}

inline void PutBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xff));
}

}  // namespace af::testing
