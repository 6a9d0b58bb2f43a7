// BundleReader: opens a TensorFlow tensor-bundle checkpoint (PREFIX.index
// and its data files), checks the whole index (table checksums, header,
// every entry's dtype, shape, shard and size), and reads tensors on demand,
// checking each one's bounds and CRC32C first. Anything that does not add
// up is DATA_LOSS naming the file and, for a tensor, the tensor.
//
// Entries are presented as checkpoint::TensorEntry, the form the rest of
// the checkpoint code (core/checkpoint_slices.h) works with: a partitioned
// variable's slices appear as "<name>@<spec>" keys, the naming .afckpt
// files use, so both formats restore through one path.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/checkpoint_format.h"
#include "core/status.h"
#include "core/tensor.h"
#include "proto/tensor_bundle.pb.h"

namespace af::bundle {

// A tensor as TensorFlow's inspect_checkpoint lists it: a partitioned
// variable once, with its full shape.
struct ListedTensor {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  int num_slices = 0;  // 0: saved whole
};

class BundleReader {
 public:
  // NOT_FOUND if PREFIX.index does not exist.
  static Status Open(const std::string& prefix, std::unique_ptr<BundleReader>* out);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  const std::string& prefix() const { return prefix_; }
  const std::string& index_path() const { return index_path_; }
  uint64_t index_size() const { return index_size_; }
  int num_shards() const { return num_shards_; }
  // Sorted by name; crc32c holds the entry's masked CRC as stored.
  const std::vector<checkpoint::TensorEntry>& entries() const { return entries_; }
  const std::vector<ListedTensor>& listing() const { return listing_; }

  // Reads an entry of entries() into a new tensor from `allocator` (CPU if
  // null). DATA_LOSS naming the tensor and the data file if its bytes lie
  // outside the file or do not match their checksum.
  Status Read(const checkpoint::TensorEntry& entry, Allocator* allocator, Tensor* out) const;

 private:
  BundleReader() = default;
  Status Load(const std::string& index_bytes);
  Status DataFile(int shard, int* fd, uint64_t* size) const;
  Status ReadAt(int fd, const std::string& file, uint64_t offset, void* dst, uint64_t n) const;
  Status DecodeStrings(const checkpoint::TensorEntry& e, const std::string& file,
                       const std::string& raw, Tensor* t) const;

  std::string prefix_, index_path_;
  uint64_t index_size_ = 0;
  int num_shards_ = 1;
  std::vector<checkpoint::TensorEntry> entries_;
  std::vector<ListedTensor> listing_;
  mutable std::mutex mu_;                // guards the two below
  mutable std::vector<int> fds_;         // per shard, opened on first read (-1 before)
  mutable std::vector<uint64_t> sizes_;  // their sizes
};

// The raw records of an index: (key, entry) in key order, header apart.
// The table and header are checked; the entries only parsed.
using IndexEntry = std::pair<std::string, tensorflow::BundleEntryProto>;
Status ReadIndex(const std::string& prefix, tensorflow::BundleHeaderProto* header,
                 std::vector<IndexEntry>* entries);
// The same from an index file's bytes; `file` names it in messages.
Status DecodeIndex(const std::string& bytes, const std::string& file,
                   tensorflow::BundleHeaderProto* header, std::vector<IndexEntry>* entries);

// The files of the bundle at `prefix`: its data files, then PREFIX.index.
Status BundleFiles(const std::string& prefix, std::vector<std::string>* files);

}  // namespace af::bundle
