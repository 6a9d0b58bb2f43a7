#include "core/bundle/bundle_format.h"

#include <cstdio>

namespace af::bundle {
namespace {

// OrderedCode (TensorFlow's strings::OrderedCode), the parts slice keys use.
// Unsigned: a length byte, then the big-endian bytes without leading zeros.
void WriteNumIncreasing(std::string* dst, uint64_t v) {
  unsigned char buf[9];
  int n = 0;
  for (uint64_t x = v; x != 0; x >>= 8) ++n;
  buf[0] = static_cast<unsigned char>(n);
  for (int i = 0; i < n; ++i) buf[1 + i] = static_cast<unsigned char>(v >> (8 * (n - 1 - i)));
  dst->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n) + 1);
}

// Strings: 0x00 escaped as 00 ff, 0xff as ff 00, terminated by 00 01.
void WriteString(std::string* dst, std::string_view s) {
  for (char c : s) {
    if (c == '\0') {
      dst->append("\0\xff", 2);
    } else if (c == '\xff') {
      dst->append("\xff\0", 2);
    } else {
      dst->push_back(c);
    }
  }
  dst->append("\0\1", 2);
}

// Signed: the value's two's-complement bytes, sign-extended, with a unary
// length header of `len` ones then a zero in the top bits (for len >= 8 the
// header spills into the second byte), where len is the fewest bytes whose
// 7*len-1 payload bits hold the value's magnitude.
void WriteSignedNumIncreasing(std::string* dst, int64_t v) {
  const uint64_t x = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int len = 1;
  while (len < 10 && (x >> (7 * len - 1)) != 0) ++len;
  unsigned char buf[10];
  const unsigned char sign = v < 0 ? 0xff : 0x00;
  for (int i = 0; i < 10; ++i) buf[i] = sign;
  for (int i = 0; i < 8; ++i)
    buf[9 - i] = static_cast<unsigned char>(static_cast<uint64_t>(v) >> (8 * i));
  unsigned char* begin = buf + 10 - len;
  // Header bits: `len` ones followed by a zero, over the first two bytes.
  const uint16_t header = static_cast<uint16_t>(~(0xffffu >> len) & 0xffffu);
  begin[0] ^= static_cast<unsigned char>(header >> 8);
  if (len > 1) begin[1] ^= static_cast<unsigned char>(header & 0xff);
  dst->append(reinterpret_cast<const char*>(begin), static_cast<size_t>(len));
}

}  // namespace

std::string MetaFilename(std::string_view prefix) {
  return std::string(prefix) + std::string(kIndexSuffix);
}

std::string DataFilename(std::string_view prefix, int shard, int num_shards) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", shard, num_shards);
  return std::string(prefix) + suffix;
}

tensorflow::BundleHeaderProto MakeHeader(int num_shards) {
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  header.mutable_version()->set_min_consumer(kBundleMinConsumer);
  return header;
}

Status CheckHeader(const tensorflow::BundleHeaderProto& header, const std::string& file) {
  if (header.num_shards() < 1 || header.num_shards() > kMaxShards)
    return errors::DataLoss("checkpoint index ", file, " is corrupt: header claims ",
                            header.num_shards(), " data shards");
  if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE)
    return errors::Unimplemented("checkpoint ", file,
                                 " was written big-endian; only little-endian bundles are read");
  if (header.version().min_consumer() > kBundleVersion)
    return errors::Unimplemented("checkpoint ", file, " needs a reader of bundle version >= ",
                                 header.version().min_consumer(), "; this one is version ",
                                 kBundleVersion);
  for (int bad : header.version().bad_consumers())
    if (bad == kBundleVersion)
      return errors::Unimplemented("checkpoint ", file, " disallows bundle readers of version ",
                                   kBundleVersion);
  return Status::OK();
}

std::string EncodeTensorNameSlice(std::string_view name, const std::vector<int64_t>& start,
                                  const std::vector<int64_t>& length) {
  std::string key;
  WriteNumIncreasing(&key, 0);  // every slice key starts with 0: apart from names
  WriteString(&key, name);
  WriteNumIncreasing(&key, start.size());
  for (size_t d = 0; d < start.size(); ++d) {
    WriteSignedNumIncreasing(&key, start[d]);
    WriteSignedNumIncreasing(&key, length[d]);
  }
  return key;
}

void SliceToProto(const TensorSliceSpec& slice, tensorflow::TensorSliceProto* proto) {
  proto->Clear();
  for (size_t d = 0; d < slice.offset.size(); ++d) {
    auto* extent = proto->add_extent();
    extent->set_start(slice.offset[d]);
    extent->set_length(slice.length[d]);
  }
}

Status SliceFromProto(const tensorflow::TensorSliceProto& proto,
                      const std::vector<int64_t>& full_shape, TensorSliceSpec* out) {
  if (static_cast<size_t>(proto.extent_size()) != full_shape.size())
    return errors::InvalidArgument("slice of rank ", proto.extent_size(), " of a tensor of rank ",
                                   full_shape.size());
  TensorSliceSpec spec;
  spec.full_shape = full_shape;
  for (size_t d = 0; d < full_shape.size(); ++d) {
    const auto& e = proto.extent(static_cast<int>(d));
    const int64_t start = e.start();
    const int64_t length = e.has_length_case() == tensorflow::TensorSliceProto::Extent::kLength
                               ? e.length()
                               : full_shape[d] - start;
    if (start < 0 || length < 0 || start > full_shape[d] || length > full_shape[d] - start)
      return errors::InvalidArgument("slice extent ", start, ",", length, " outside dim ", d,
                                     " of size ", full_shape[d]);
    spec.offset.push_back(start);
    spec.length.push_back(length);
  }
  *out = std::move(spec);
  return Status::OK();
}

}  // namespace af::bundle
