#include "core/bundle/snappy.h"

#include <cstring>

#include "core/bundle/coding.h"

namespace af::bundle {
namespace {

// Tag kinds: the low two bits of each element's first byte.
enum : unsigned { kLiteral = 0, kCopy1 = 1, kCopy2 = 2, kCopy4 = 3 };

Status Malformed(const char* what) { return errors::DataLoss("corrupt snappy block: ", what); }

}  // namespace

Status SnappyUncompress(std::string_view in, std::string* out) {
  uint32_t declared = 0;
  if (!GetVarint32(&in, &declared)) return Malformed("bad length preamble");
  if (declared > in.size() * kSnappyMaxRatio + 64)
    return Malformed("declared length larger than the data could expand to");
  out->clear();
  out->resize(declared);
  char* const base = out->data();
  size_t produced = 0;
  while (!in.empty()) {
    const auto tag = static_cast<unsigned char>(in[0]);
    in.remove_prefix(1);
    size_t length = 0, offset = 0;
    if ((tag & 3u) == kLiteral) {
      length = tag >> 2;
      if (length >= 60) {
        // 60..63: the length-1 follows in 1..4 little-endian bytes.
        const size_t extra = length - 59;
        if (in.size() < extra) return Malformed("truncated literal length");
        length = 0;
        for (size_t i = 0; i < extra; ++i)
          length |= size_t{static_cast<unsigned char>(in[i])} << (8 * i);
        in.remove_prefix(extra);
      }
      length += 1;
      if (length > in.size()) return Malformed("literal runs past the end of the input");
      if (length > declared - produced) return Malformed("literal runs past the declared length");
      std::memcpy(base + produced, in.data(), length);
      produced += length;
      in.remove_prefix(length);
      continue;
    }
    if ((tag & 3u) == kCopy1) {
      if (in.empty()) return Malformed("truncated copy");
      length = 4 + ((tag >> 2) & 7u);
      offset = (static_cast<size_t>(tag >> 5) << 8) | static_cast<unsigned char>(in[0]);
      in.remove_prefix(1);
    } else if ((tag & 3u) == kCopy2) {
      if (in.size() < 2) return Malformed("truncated copy");
      length = 1 + (tag >> 2);
      offset = static_cast<unsigned char>(in[0]) | (size_t{static_cast<unsigned char>(in[1])} << 8);
      in.remove_prefix(2);
    } else {
      if (in.size() < 4) return Malformed("truncated copy");
      length = 1 + (tag >> 2);
      offset = DecodeFixed32(in.data());
      in.remove_prefix(4);
    }
    if (offset == 0 || offset > produced) return Malformed("copy from before the start");
    if (length > declared - produced) return Malformed("copy runs past the declared length");
    // Byte by byte: a copy may overlap its own output (offset < length
    // repeats a pattern), which memmove would not reproduce.
    const char* src = base + produced - offset;
    for (size_t i = 0; i < length; ++i) base[produced + i] = src[i];
    produced += length;
  }
  if (produced != declared) return Malformed("data shorter than its declared length");
  return Status::OK();
}

}  // namespace af::bundle
