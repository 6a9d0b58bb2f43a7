// LevelDB's sorted-table file format, as TensorFlow's tensor bundles use it
// for PREFIX.index: data blocks (core/bundle/table_block.h), each followed
// by a 5-byte trailer (compression type: 0 none, 1 snappy; then the masked
// CRC32C of the block and the type byte), an empty metaindex block, an
// index block mapping a separator key per data block to its BlockHandle
// (varint64 offset and size), and a 48-byte footer: the metaindex and index
// handles zero-padded to 40 bytes, then the magic 0xdb4775248b80fb57 as a
// little-endian fixed64.
//
// The builder writes what LevelDB's (and TensorFlow's) TableBuilder writes
// for the same keys with no compression, byte for byte: the same block
// size, restart intervals and shortest separators. The reader takes a whole
// file image (an index is small) and returns every entry; it checks every
// checksum and bound and reports DATA_LOSS, without a file name (callers
// add it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/bundle/table_block.h"
#include "core/status.h"

namespace af::bundle {

inline constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
inline constexpr size_t kTableFooterSize = 48;
inline constexpr size_t kBlockTrailerSize = 5;
inline constexpr char kNoCompression = 0;
inline constexpr char kSnappyCompression = 1;

struct TableOptions {
  // TensorFlow's defaults (tensorflow/core/lib/io/table_options.h).
  size_t block_size = 262144;
  int restart_interval = 16;
};

class TableBuilder {
 public:
  explicit TableBuilder(TableOptions options = {});
  // Keys strictly increasing, bytewise.
  void Add(std::string_view key, std::string_view value);
  // The whole file.
  std::string Finish();

 private:
  void FlushDataBlock();
  void WriteBlock(BlockBuilder* block, uint64_t* offset, uint64_t* size);

  TableOptions options_;
  std::string out_;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  std::string last_key_;
  bool pending_index_entry_ = false;
  uint64_t pending_offset_ = 0, pending_size_ = 0;
};

// LevelDB's bytewise comparator helpers: a short key k with
// start <= k < limit, and a short key >= key.
void ShortestSeparator(std::string* start, std::string_view limit);
void ShortSuccessor(std::string* key);

// Every entry of the table image `file`, in key order.
Status ReadTable(std::string_view file, std::vector<KeyValue>* out);

}  // namespace af::bundle
