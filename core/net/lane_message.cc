#include "core/net/lane_message.h"

#include <cstring>

namespace af::net {
namespace {

template <class T>
void Put(char* out, size_t* at, T value) {
  std::memcpy(out + *at, &value, sizeof value);
  *at += sizeof value;
}

template <class T>
T Get(const char* data, size_t* at) {
  T value;
  std::memcpy(&value, data + *at, sizeof value);
  *at += sizeof value;
  return value;
}

}  // namespace

uint32_t FrameMagicOf(const char* prefix) {
  uint32_t magic;
  std::memcpy(&magic, prefix, sizeof magic);
  return magic;
}

std::array<char, kLanePrefixBytes> EncodeLanePrefix(const LanePrefix& prefix) {
  std::array<char, kLanePrefixBytes> out{};
  size_t at = 0;
  Put<uint32_t>(out.data(), &at, kLaneMagic);
  Put<uint16_t>(out.data(), &at, kLaneVersion);
  Put<uint16_t>(out.data(), &at, static_cast<uint16_t>(prefix.kind));
  Put<uint32_t>(out.data(), &at, prefix.body_bytes);
  Put<uint32_t>(out.data(), &at, 0);
  Put<uint64_t>(out.data(), &at, prefix.correlation);
  Put<int64_t>(out.data(), &at, prefix.step_id);
  return out;
}

Status ParseLanePrefix(const char* bytes, LanePrefix* out) {
  size_t at = 0;
  const uint32_t magic = Get<uint32_t>(bytes, &at);
  const uint16_t version = Get<uint16_t>(bytes, &at);
  const uint16_t kind = Get<uint16_t>(bytes, &at);
  out->body_bytes = Get<uint32_t>(bytes, &at);
  const uint32_t reserved = Get<uint32_t>(bytes, &at);
  out->correlation = Get<uint64_t>(bytes, &at);
  out->step_id = Get<int64_t>(bytes, &at);
  if (magic != kLaneMagic) return errors::DataLoss("not a lane message (bad magic)");
  if (version != kLaneVersion) {
    return errors::DataLoss("lane message version ", version, ", this process speaks ",
                            kLaneVersion);
  }
  if (kind != static_cast<uint16_t>(LaneKind::kRunGraph) &&
      kind != static_cast<uint16_t>(LaneKind::kRunGraphReply) &&
      kind != static_cast<uint16_t>(LaneKind::kAbortStep)) {
    return errors::DataLoss("lane message of unknown kind ", kind);
  }
  if (out->body_bytes > kMaxLaneBodyBytes) {
    return errors::DataLoss("lane message of ", out->body_bytes, " bytes (limit ",
                            kMaxLaneBodyBytes, ")");
  }
  if (reserved != 0) return errors::DataLoss("lane message with reserved bits set");
  out->kind = static_cast<LaneKind>(kind);
  return Status::OK();
}

}  // namespace af::net
