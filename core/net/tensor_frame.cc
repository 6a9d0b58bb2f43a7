#include "core/net/tensor_frame.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace af::net {
namespace {

template <class T>
void Put(std::string* out, size_t* at, T value) {
  std::memcpy(out->data() + *at, &value, sizeof value);
  *at += sizeof value;
}

template <class T>
T Get(const char* data, size_t* at) {
  T value;
  std::memcpy(&value, data + *at, sizeof value);
  *at += sizeof value;
  return value;
}

bool FixedSize(DataType dtype) { return !IsRefType(dtype) && DataTypeSize(dtype) > 0; }

}  // namespace

bool CanFrame(const Tensor& value) { return value.IsInitialized() && FixedSize(value.dtype()); }

std::string EncodeFrameHeader(int64_t step_id, std::string_view key, const Tensor& value) {
  const uint32_t rank = static_cast<uint32_t>(value.dims());
  std::string out(kFramePrefixBytes + size_t{rank} * 8 + key.size(), '\0');
  size_t at = 0;
  Put<uint32_t>(&out, &at, kFrameMagic);
  Put<uint16_t>(&out, &at, kFrameVersion);
  Put<uint16_t>(&out, &at, static_cast<uint16_t>(value.dtype()));
  Put<uint32_t>(&out, &at, rank);
  Put<uint32_t>(&out, &at, static_cast<uint32_t>(key.size()));
  Put<int64_t>(&out, &at, step_id);
  Put<uint64_t>(&out, &at, static_cast<uint64_t>(value.TotalBytes()));
  for (uint32_t d = 0; d < rank; ++d) Put<int64_t>(&out, &at, value.dim_size(static_cast<int>(d)));
  std::memcpy(out.data() + at, key.data(), key.size());
  return out;
}

Status ParseFramePrefix(const char* prefix, uint64_t max_payload_bytes, FramePrefix* out) {
  size_t at = 0;
  const uint32_t magic = Get<uint32_t>(prefix, &at);
  const uint16_t version = Get<uint16_t>(prefix, &at);
  const uint16_t dtype = Get<uint16_t>(prefix, &at);
  out->rank = Get<uint32_t>(prefix, &at);
  out->key_bytes = Get<uint32_t>(prefix, &at);
  out->step_id = Get<int64_t>(prefix, &at);
  out->payload_bytes = Get<uint64_t>(prefix, &at);
  if (magic != kFrameMagic) return errors::DataLoss("not a tensor frame (bad magic)");
  if (version != kFrameVersion) {
    return errors::DataLoss("tensor frame version ", version, ", this process speaks ",
                            kFrameVersion);
  }
  if (!IsValidDataType(dtype) || !FixedSize(static_cast<DataType>(dtype))) {
    return errors::DataLoss("tensor frame of dtype ", dtype, ", not a fixed-size type");
  }
  out->dtype = static_cast<DataType>(dtype);
  if (out->rank > kMaxFrameRank) return errors::DataLoss("tensor frame of rank ", out->rank);
  if (out->key_bytes == 0 || out->key_bytes > kMaxFrameKeyBytes) {
    return errors::DataLoss("tensor frame with a key of ", out->key_bytes, " bytes");
  }
  if (out->payload_bytes > max_payload_bytes) {
    return errors::DataLoss("tensor frame of ", out->payload_bytes, " bytes, more than ",
                            max_payload_bytes, " (this host's memory)");
  }
  return Status::OK();
}

Status ParseFrameRest(const FramePrefix& prefix, std::string_view rest, TensorShape* shape,
                      std::string* key) {
  if (rest.size() != prefix.rest_bytes()) return errors::Internal("frame rest of wrong size");
  std::vector<int64_t> dims(prefix.rank);
  size_t at = 0;
  for (uint32_t d = 0; d < prefix.rank; ++d) dims[d] = Get<int64_t>(rest.data(), &at);
  if (Status s = TensorShape::Build(dims, shape); !s.ok()) {
    return errors::DataLoss("tensor frame with a bad shape: ", s.message());
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(shape->num_elements()),
                             static_cast<uint64_t>(DataTypeSize(prefix.dtype)), &bytes) ||
      bytes != prefix.payload_bytes) {
    return errors::DataLoss("tensor frame of shape ", shape->DebugString(), " declares ",
                            prefix.payload_bytes, " bytes");
  }
  key->assign(rest.data() + at, prefix.key_bytes);
  return Status::OK();
}

uint64_t MaxReceivedTensorBytes() {
  constexpr uint64_t kCap = uint64_t{1} << 40;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return kCap;
  return std::min(kCap, static_cast<uint64_t>(pages) * static_cast<uint64_t>(page));
}

}  // namespace af::net
