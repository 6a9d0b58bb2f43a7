#include "core/bundle/table_block.h"

#include <algorithm>

#include "core/bundle/coding.h"

namespace af::bundle {

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(key.size() - shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, key.size() - shared);
  buffer_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
}

std::string_view BlockBuilder::Finish() {
  if (!finished_) {
    for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
    PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    finished_ = true;
  }
  return buffer_;
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  finished_ = false;
  last_key_.clear();
}

Status DecodeBlock(std::string_view block, std::vector<KeyValue>* out) {
  auto corrupt = [](const char* what) { return errors::DataLoss("corrupt table block: ", what); };
  if (block.size() < 4) return corrupt("shorter than its restart count");
  const uint32_t num_restarts = DecodeFixed32(block.data() + block.size() - 4);
  if (num_restarts == 0 || num_restarts > (block.size() - 4) / 4)
    return corrupt("restart array does not fit");
  const size_t data_end = block.size() - 4 - 4 * size_t{num_restarts};
  std::vector<uint32_t> restarts(num_restarts);
  for (uint32_t i = 0; i < num_restarts; ++i)
    restarts[i] = DecodeFixed32(block.data() + data_end + 4 * size_t{i});
  if (!std::is_sorted(restarts.begin(), restarts.end()) || restarts.back() > data_end ||
      restarts.front() != 0)
    return corrupt("restart offsets out of order or outside the entries");

  std::string_view rest = block.substr(0, data_end);
  std::string key;
  size_t next_restart = 0;
  bool first = true;
  while (!rest.empty()) {
    const size_t at = data_end - rest.size();
    // A restart point the previous entry stepped over points inside it.
    if (next_restart < num_restarts && restarts[next_restart] < at)
      return corrupt("restart offset inside an entry");
    const bool is_restart = next_restart < num_restarts && restarts[next_restart] == at;
    while (next_restart < num_restarts && restarts[next_restart] == at) ++next_restart;
    uint32_t shared, non_shared, value_size;
    if (!GetVarint32(&rest, &shared) || !GetVarint32(&rest, &non_shared) ||
        !GetVarint32(&rest, &value_size))
      return corrupt("bad entry lengths");
    if (shared > key.size()) return corrupt("entry shares more than the previous key");
    if (is_restart && shared != 0) return corrupt("restart entry shares a prefix");
    if (non_shared > rest.size() || value_size > rest.size() - non_shared)
      return corrupt("entry runs past the end of the block");
    std::string next = key.substr(0, shared);
    next.append(rest.data(), non_shared);
    if (!first && next <= key) return corrupt("keys out of order");
    first = false;
    key = std::move(next);
    out->emplace_back(key, std::string(rest.substr(non_shared, value_size)));
    rest.remove_prefix(non_shared + size_t{value_size});
  }
  // Only an empty block's restart (0) may lie at the end of the entries.
  for (; next_restart < num_restarts; ++next_restart)
    if (restarts[next_restart] != data_end) return corrupt("restart offset inside an entry");
  return Status::OK();
}

}  // namespace af::bundle
