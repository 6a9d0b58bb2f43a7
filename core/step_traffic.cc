#include "core/step_traffic.h"

namespace af {

std::string_view TaskOfDevice(std::string_view device) {
  const size_t at = device.find("/device:");
  return at == std::string_view::npos ? device : device.substr(0, at);
}

uint64_t PayloadBytes(const Tensor& value) {
  if (!value.IsInitialized()) return 0;
  if (BaseType(value.dtype()) != DT_STRING) return value.TotalBytes();
  uint64_t bytes = 0;
  const std::string* strings = value.data<std::string>();
  for (int64_t i = 0; i < value.NumElements(); ++i) bytes += strings[i].size();
  return bytes;
}

void AddTraffic(StepTraffic* traffic, std::string_view src, std::string_view dst,
                uint64_t bytes, uint64_t tensors) {
  for (TaskTraffic& entry : *traffic) {
    if (entry.src == src && entry.dst == dst) {
      entry.bytes += bytes;
      entry.tensors += tensors;
      return;
    }
  }
  traffic->push_back(TaskTraffic{std::string(src), std::string(dst), bytes, tensors});
}

void MergeTraffic(StepTraffic* traffic, const StepTraffic& more) {
  for (const TaskTraffic& entry : more)
    AddTraffic(traffic, entry.src, entry.dst, entry.bytes, entry.tensors);
}

uint64_t BytesTo(const StepTraffic& traffic, std::string_view task) {
  uint64_t bytes = 0;
  for (const TaskTraffic& entry : traffic)
    if (entry.dst == task) bytes += entry.bytes;
  return bytes;
}

uint64_t BytesFrom(const StepTraffic& traffic, std::string_view task) {
  uint64_t bytes = 0;
  for (const TaskTraffic& entry : traffic)
    if (entry.src == task) bytes += entry.bytes;
  return bytes;
}

std::string TrafficDebugString(const StepTraffic& traffic) {
  std::string out;
  for (const TaskTraffic& entry : traffic) {
    out += entry.src + " -> " + entry.dst + ": " + std::to_string(entry.tensors) +
           (entry.tensors == 1 ? " tensor, " : " tensors, ") + std::to_string(entry.bytes) +
           " bytes\n";
  }
  return out;
}

}  // namespace af
