// The data plane's second kind of frame: a small control message of the
// direct step path (actors/worker/direct_steps.h), a RunGraph request or
// its reply, carried on the same authenticated (and, off loopback, sealed)
// connections as tensor frames, so that a remote step needs no trip through
// CAF's middleman thread. A reader tells the two kinds apart by the magic.
//
//   prefix (32 bytes): magic u32 'AFLM', version u16, kind u16,
//                      body bytes u32, reserved u32 (zero),
//                      correlation u64, step_id i64
//   then the body: the message as CAF's binary format writes it
//   (actors/transport/wire_codec.h).
//
// Integers in the sender's byte order, as tensor frames. Everything is
// checked before the body is allocated. No CAF here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/status.h"

namespace af::net {

inline constexpr uint32_t kLaneMagic = 0x4d4c4641;  // "AFLM" on the wire
inline constexpr uint16_t kLaneVersion = 1;
inline constexpr size_t kLanePrefixBytes = 32;
// A step's feeds travel in its request: larger requests take CAF's path
// (with its chunking), so a lane message never holds a reader for long.
inline constexpr uint32_t kMaxLaneBodyBytes = 64u << 20;

enum class LaneKind : uint16_t {
  kRunGraph = 1,       // master -> worker: wire::RunGraphRequest
  kRunGraphReply = 2,  // worker -> master: wire::RunGraphResponse
  // -> worker: abort step `step_id`; correlation holds the status code and
  // the body its message.
  kAbortStep = 3,
};

struct LanePrefix {
  LaneKind kind = LaneKind::kRunGraph;
  uint32_t body_bytes = 0;
  uint64_t correlation = 0;  // the request's, echoed by its reply
  int64_t step_id = 0;
};

// The first four bytes of any data-plane frame.
uint32_t FrameMagicOf(const char* prefix);

std::array<char, kLanePrefixBytes> EncodeLanePrefix(const LanePrefix& prefix);
// DATA_LOSS naming the first thing wrong: magic, version, kind, a body over
// kMaxLaneBodyBytes, reserved bits.
Status ParseLanePrefix(const char* bytes, LanePrefix* out);

}  // namespace af::net
