#include "core/rendezvous_key.h"

#include <charconv>

namespace af {

std::string RendezvousKey(std::string_view src_device, uint64_t src_incarnation,
                          std::string_view dst_device, std::string_view tensor_name,
                          uint64_t frame_id, int64_t iter_id) {
  // Every Send and Recv makes a key: hex by hand, not through printf.
  static constexpr char kHex[] = "0123456789abcdef";
  char incarnation[16];
  for (int i = 15; i >= 0; --i) {
    incarnation[i] = kHex[src_incarnation & 0xf];
    src_incarnation >>= 4;
  }
  std::string key;
  key.reserve(src_device.size() + dst_device.size() + tensor_name.size() + 48);
  key += src_device;
  key += ';';
  key.append(incarnation, sizeof(incarnation));
  key += ';';
  key += dst_device;
  key += ';';
  key += tensor_name;
  key += ';';
  key += std::to_string(frame_id);
  key += ':';
  key += std::to_string(iter_id);
  return key;
}

namespace {
template <typename T>
bool ParseInt(std::string_view s, int base, T* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && ptr == s.data() + s.size();
}
}  // namespace

Status ParseRendezvousKey(std::string_view key, ParsedRendezvousKey* out) {
  std::string_view parts[5];
  std::string_view rest = key;
  for (int i = 0; i < 4; ++i) {
    size_t pos = rest.find(';');
    if (pos == std::string_view::npos) {
      return errors::InvalidArgument("Invalid rendezvous key '", key,
                                     "': want src;incarnation;dst;name;frame:iter");
    }
    parts[i] = rest.substr(0, pos);
    rest = rest.substr(pos + 1);
  }
  parts[4] = rest;
  size_t colon = parts[4].find(':');
  if (parts[0].empty() || parts[2].empty() || parts[3].empty() || colon == std::string_view::npos ||
      !ParseInt(parts[1], 16, &out->src_incarnation) ||
      !ParseInt(parts[4].substr(0, colon), 10, &out->frame_id) ||
      !ParseInt(parts[4].substr(colon + 1), 10, &out->iter_id)) {
    return errors::InvalidArgument("Invalid rendezvous key '", key,
                                   "': want src;incarnation;dst;name;frame:iter");
  }
  out->src_device = std::string(parts[0]);
  out->dst_device = std::string(parts[2]);
  out->tensor_name = std::string(parts[3]);
  return Status::OK();
}

}  // namespace af
