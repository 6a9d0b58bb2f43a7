#include "core/checkpoint_format.h"

#include <bit>
#include <cstring>
#include <limits>

#include "core/crc32c.h"

namespace af::checkpoint {

static_assert(std::endian::native == std::endian::little,
              "the checkpoint format stores little-endian values as they lie in memory");

namespace {

void PutU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void PutU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

// Reads fixed-size fields from a byte range, remembering the first overrun.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool U32(uint32_t* v) { return Raw(v, 4); }
  bool U64(uint64_t* v) { return Raw(v, 8); }
  bool Bytes(size_t n, std::string_view* v) {
    if (n > bytes_.size() - pos_) return false;
    *v = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  bool Raw(void* v, size_t n) {
    if (n > bytes_.size() - pos_) return false;
    std::memcpy(v, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::string_view bytes_;
  size_t pos_ = 0;
};

template <typename... Args>
Status Corrupt(const std::string& file, const Args&... args) {
  return errors::DataLoss("checkpoint ", file, " is corrupt: ", args...);
}

}  // namespace

bool IsSupportedDtype(DataType dtype) {
  if (IsRefType(dtype)) return false;
  return dtype == DT_STRING || DataTypeSize(dtype) > 0;
}

uint64_t EncodedSize(DataType dtype, const TensorShape& shape, const void* strings) {
  const uint64_t n = static_cast<uint64_t>(shape.num_elements());
  if (dtype != DT_STRING) return n * static_cast<uint64_t>(DataTypeSize(dtype));
  uint64_t size = 8 * n;
  const auto* s = static_cast<const std::string*>(strings);
  for (uint64_t i = 0; i < n; ++i) size += s[i].size();
  return size;
}

std::string EncodeHeader() {
  std::string out(kMagic);
  PutU32(&out, kFormatVersion);
  PutU32(&out, crc32c::Value(out.data(), out.size()));
  return out;
}

Status DecodeHeader(std::string_view bytes, const std::string& file) {
  if (bytes.size() < kHeaderSize || bytes.substr(0, kMagic.size()) != kMagic)
    return errors::DataLoss(file, " is not an actorflow checkpoint (bad magic number)");
  uint32_t version, crc;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&crc, bytes.data() + 12, 4);
  if (crc32c::Value(bytes.data(), 12) != crc)
    return errors::DataLoss("checkpoint ", file, " is corrupt: header checksum mismatch");
  if (version != kFormatVersion)
    return errors::Unimplemented("checkpoint ", file, " has format version ", version,
                                 "; this build reads version ", kFormatVersion);
  return Status::OK();
}

std::string EncodeFooter(const Footer& footer) {
  std::string out;
  PutU64(&out, footer.index_offset);
  PutU64(&out, footer.index_size);
  PutU32(&out, footer.index_crc32c);
  PutU32(&out, crc32c::Value(out.data(), out.size()));
  out.append(kMagic);
  return out;
}

Status DecodeFooter(std::string_view bytes, uint64_t file_size, const std::string& file,
                    Footer* out) {
  if (bytes.size() != kFooterSize || bytes.substr(24) != kMagic)
    return Corrupt(file, "no footer (truncated?)");
  Cursor c(bytes);
  uint32_t footer_crc;
  c.U64(&out->index_offset);
  c.U64(&out->index_size);
  c.U32(&out->index_crc32c);
  c.U32(&footer_crc);
  if (crc32c::Value(bytes.data(), 20) != footer_crc) return Corrupt(file, "footer checksum mismatch");
  const uint64_t index_end_max = file_size - kFooterSize;
  if (out->index_offset < kHeaderSize || out->index_offset > index_end_max ||
      out->index_size != index_end_max - out->index_offset)
    return Corrupt(file, "the index [", out->index_offset, ", +", out->index_size,
                   ") does not end where the footer starts (", index_end_max,
                   "); truncated or extended?");
  return Status::OK();
}

std::string EncodeIndex(const std::vector<TensorEntry>& entries) {
  std::string out;
  PutU32(&out, static_cast<uint32_t>(entries.size()));
  for (const TensorEntry& e : entries) {
    PutU32(&out, static_cast<uint32_t>(e.name.size()));
    out.append(e.name);
    PutU32(&out, static_cast<uint32_t>(e.dtype));
    PutU32(&out, static_cast<uint32_t>(e.shape.dims()));
    for (int64_t d : e.shape.dim_sizes()) PutU64(&out, static_cast<uint64_t>(d));
    PutU64(&out, e.offset);
    PutU64(&out, e.size);
    PutU32(&out, e.crc32c);
  }
  return out;
}

Status DecodeIndex(std::string_view bytes, uint64_t data_end, const std::string& file,
                   std::vector<TensorEntry>* out) {
  Cursor c(bytes);
  uint32_t count;
  if (!c.U32(&count)) return Corrupt(file, "empty index");
  // Each entry takes at least 32 bytes: no count beyond what the bytes hold.
  if (count > c.remaining() / 32) return Corrupt(file, "index claims ", count, " tensors");
  out->clear();
  out->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    TensorEntry e;
    uint32_t name_len, dtype, rank;
    std::string_view name;
    if (!c.U32(&name_len) || name_len > kMaxNameBytes || !c.Bytes(name_len, &name))
      return Corrupt(file, "index entry ", i, " has a bad name");
    e.name.assign(name);
    if (!c.U32(&dtype) || !IsValidDataType(static_cast<int>(dtype)) ||
        !IsSupportedDtype(static_cast<DataType>(dtype)))
      return Corrupt(file, "tensor '", e.name, "' has a bad dtype");
    e.dtype = static_cast<DataType>(dtype);
    if (!c.U32(&rank) || rank > static_cast<uint32_t>(kMaxRank))
      return Corrupt(file, "tensor '", e.name, "' has a bad rank");
    std::vector<int64_t> dims(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      uint64_t v;
      if (!c.U64(&v) || v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Corrupt(file, "tensor '", e.name, "' has a bad dimension");
      dims[d] = static_cast<int64_t>(v);
    }
    if (!TensorShape::Build(dims, &e.shape).ok())
      return Corrupt(file, "tensor '", e.name, "' has an invalid shape");
    if (!c.U64(&e.offset) || !c.U64(&e.size) || !c.U32(&e.crc32c))
      return Corrupt(file, "index entry ", i, " is cut short");
    if (e.offset < kHeaderSize || e.offset > data_end || e.size > data_end - e.offset)
      return Corrupt(file, "tensor '", e.name, "' lies outside the data section");
    const uint64_t n = static_cast<uint64_t>(e.shape.num_elements());
    const bool size_ok = e.dtype == DT_STRING
                             ? n <= e.size / 8
                             : n <= e.size && e.size == n * DataTypeSize(e.dtype);
    if (!size_ok)
      return Corrupt(file, "tensor '", e.name, "' has ", e.size, " bytes, which does not fit ",
                     DataTypeString(e.dtype), " ", e.shape.DebugString());
    if (!out->empty() && !(out->back().name < e.name))
      return Corrupt(file, "index names are not sorted and unique at '", e.name, "'");
    out->push_back(std::move(e));
  }
  if (c.remaining() != 0) return Corrupt(file, c.remaining(), " stray bytes after the index");
  return Status::OK();
}

}  // namespace af::checkpoint
