// The data plane's frame: one tensor of a step, as a short header and then
// its raw bytes, so that a sender writes straight from the tensor's buffer
// and a receiver reads straight into the destination's.
//
//   prefix (32 bytes): magic u32 'AFTF', version u16, dtype u16, rank u32,
//                      key bytes u32, step_id i64, payload bytes u64
//   rank x i64 dims, then the rendezvous key, then the payload.
//
// Integers are in the sender's byte order, as the payload is: the hosts of
// a cluster share one (every supported host is little-endian). Everything a
// peer declares is checked before anything is allocated, and 64-bit sizes
// are used throughout: tensors over 4 GiB are ordinary here. No CAF here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/tensor.h"

namespace af::net {

inline constexpr uint32_t kFrameMagic = 0x46544641;  // "AFTF" on the wire
inline constexpr uint16_t kFrameVersion = 1;
inline constexpr size_t kFramePrefixBytes = 32;
// Rendezvous keys are device names and a tensor name: far below this.
inline constexpr uint32_t kMaxFrameKeyBytes = 64 * 1024;
// TensorFlow's own limit on rank.
inline constexpr uint32_t kMaxFrameRank = 254;

struct FramePrefix {
  int64_t step_id = 0;
  DataType dtype = DT_INVALID;
  uint32_t rank = 0;
  uint32_t key_bytes = 0;
  uint64_t payload_bytes = 0;
  // Bytes of dims and key after the prefix.
  size_t rest_bytes() const { return size_t{rank} * 8 + key_bytes; }
};

// Whether `value` can travel as a frame: a fixed-size dtype, with memory.
bool CanFrame(const Tensor& value);

// The prefix, dims and key of `value`'s frame (the payload follows it).
std::string EncodeFrameHeader(int64_t step_id, std::string_view key, const Tensor& value);

// Checks a received prefix: magic, version, a valid fixed-size dtype, rank
// and key length within bounds, payload at most `max_payload_bytes`.
// DATA_LOSS naming the first thing wrong.
Status ParseFramePrefix(const char* prefix, uint64_t max_payload_bytes, FramePrefix* out);
// Dims and key (`rest`, rest_bytes() long): dims non-negative and their
// product times the element size equal to the payload.
Status ParseFrameRest(const FramePrefix& prefix, std::string_view rest, TensorShape* shape,
                      std::string* key);

// A sane bound on one received tensor: the host's physical memory (at most
// 1 TiB); a larger claim is garbage, not a tensor.
uint64_t MaxReceivedTensorBytes();

}  // namespace af::net
