// CheckpointReader: opens a checkpoint file, checks its header, footer and
// index (DATA_LOSS if anything is off), and reads tensors on demand,
// checking each one's size and CRC32C before handing it out.
//
// Two formats: an .afckpt file (core/checkpoint_format.h), or TensorFlow's
// tensor bundle when the path is a PREFIX.index (core/bundle/), whose
// reads go to its data files. Everything above this class (slices, shards,
// RestoreV2, the Saver, the CLI) sees one interface for both.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/allocator.h"
#include "core/checkpoint_format.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

namespace bundle {
class BundleReader;
}

class CheckpointReader {
 public:
  // `path` is the file itself (an .afckpt, a V1 file, or a bundle's
  // PREFIX.index). NOT_FOUND if it does not exist.
  static Status Open(const std::string& path, std::unique_ptr<CheckpointReader>* out);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& path() const { return path_; }
  // The checkpoint file's size (a bundle's: the .index's).
  uint64_t file_size() const { return file_size_; }
  // The tensor bundle behind this reader; nullptr for an .afckpt file.
  const bundle::BundleReader* bundle() const { return bundle_.get(); }
  // Sorted by name.
  const std::vector<checkpoint::TensorEntry>& entries() const { return entries_; }
  // nullptr if absent.
  const checkpoint::TensorEntry* Find(std::string_view name) const;
  // The entries whose names start with `prefix` (a partitioned variable's
  // slices, core/checkpoint_slices.h), in name order.
  std::vector<const checkpoint::TensorEntry*> FindWithPrefix(std::string_view prefix) const;

  // Reads an entry into a new tensor from `allocator` (CPU if null).
  // DATA_LOSS if its bytes do not match their CRC.
  Status Read(const checkpoint::TensorEntry& entry, Allocator* allocator, Tensor* out) const;
  // NOT_FOUND if the name is absent.
  Status Read(std::string_view name, Tensor* out) const;
  // Reads every tensor and checks its CRC.
  Status VerifyAll() const;

 private:
  CheckpointReader(std::string path, int fd, uint64_t size);  // in the .cc: bundle_ is incomplete here
  Status ReadAt(uint64_t offset, void* dst, uint64_t n) const;
  Status LoadIndex();

  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  std::vector<checkpoint::TensorEntry> entries_;
  std::unique_ptr<bundle::BundleReader> bundle_;
};

// The checkpoint file for `prefix`: PREFIX.index (a tensor bundle) if it
// exists, else PREFIX.afckpt, else PREFIX itself if it is a file (what
// TensorFlow's V1 Save writes, or an index named directly). NOT_FOUND
// naming them otherwise.
Status ResolveCheckpointFile(const std::string& prefix, std::string* file);

}  // namespace af
