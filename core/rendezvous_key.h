// The key under which a Send hands a tensor to the matching Recv:
//   "src_device;src_incarnation_hex;dst_device;tensor_name;frame_id:iter_id"
// The incarnation is 16 lower-case hex digits, so a restarted worker (new
// incarnation) never matches a stale peer's key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace af {

std::string RendezvousKey(std::string_view src_device, uint64_t src_incarnation,
                          std::string_view dst_device, std::string_view tensor_name,
                          uint64_t frame_id, int64_t iter_id);

struct ParsedRendezvousKey {
  std::string src_device;
  uint64_t src_incarnation = 0;
  std::string dst_device;
  std::string tensor_name;
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
};

// INVALID_ARGUMENT naming the key when it does not have the form above.
Status ParseRendezvousKey(std::string_view key, ParsedRendezvousKey* out);

}  // namespace af
