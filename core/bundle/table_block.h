// One block of a LevelDB-format sorted table (the .index of a tensor
// bundle): entries with their keys prefix-compressed against the previous
// key (varint shared, non_shared and value lengths, then the key's new
// bytes and the value), a full key every `restart_interval` entries, and at
// the end the offsets of those restart points (fixed32 each) and their
// count (fixed32). The restart array lets LevelDB binary-search a block;
// this reader decodes blocks whole, since an index is read once.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace af::bundle {

class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval) : restart_interval_(restart_interval) {}

  // Keys must be added in strictly increasing bytewise order.
  void Add(std::string_view key, std::string_view value);
  // The finished block (entries and restart array); Reset before reuse.
  std::string_view Finish();
  void Reset();
  // Bytes the block would take if finished now.
  size_t CurrentSizeEstimate() const { return buffer_.size() + 4 * restarts_.size() + 4; }
  bool empty() const { return buffer_.empty(); }
  const std::string& last_key() const { return last_key_; }

 private:
  int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_{0};
  int counter_ = 0;
  bool finished_ = false;
  std::string last_key_;
};

using KeyValue = std::pair<std::string, std::string>;

// Decodes every entry of a block (without its 5-byte trailer), appending
// them to `out`. DATA_LOSS, saying what is wrong, for lengths that leave
// the block, a restart array that does not fit, a restart offset that does
// not start an entry without shared bytes, or keys out of order.
Status DecodeBlock(std::string_view block, std::vector<KeyValue>* out);

}  // namespace af::bundle
