// What one step moved between processes: per pair of tasks, the tensors and
// their payload bytes (the Sends of one task's partitions to another's, the
// feeds the master shipped to a remote task and the values it fetched from
// one). A sparse step should show rows crossing to and from the ps tasks,
// not tables; RunMetadata::traffic carries it to the client, the Chrome
// trace draws it. No CAF here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace af {

struct TaskTraffic {
  // Tasks as "/job:ps/replica:0/task:1"; the master's side of feeds and
  // fetches is the task it runs in, or "client" when none of the session's
  // workers is in its process.
  std::string src;
  std::string dst;
  uint64_t bytes = 0;    // tensor payloads: element storage, strings' characters
  uint64_t tensors = 0;  // dead tensors count, with no bytes
};
using StepTraffic = std::vector<TaskTraffic>;

// The task part of a full device name; a name without "/device:" is
// returned whole.
std::string_view TaskOfDevice(std::string_view device);

// Bytes of `value`'s payload as it crosses (a string tensor: its characters).
uint64_t PayloadBytes(const Tensor& value);

// Adds to the src -> dst entry, creating it at the end when missing.
void AddTraffic(StepTraffic* traffic, std::string_view src, std::string_view dst,
                uint64_t bytes, uint64_t tensors);
// Adds every entry of `more`.
void MergeTraffic(StepTraffic* traffic, const StepTraffic& more);

// Bytes into / out of `task` (over every peer).
uint64_t BytesTo(const StepTraffic& traffic, std::string_view task);
uint64_t BytesFrom(const StepTraffic& traffic, std::string_view task);

// "/job:worker/replica:0/task:0 -> /job:ps/replica:0/task:0: 2 tensors,
// 66048 bytes", one line per entry, for logs and tools.
std::string TrafficDebugString(const StepTraffic& traffic);

}  // namespace af
