// CheckpointReader: opens a checkpoint file, checks its header, footer and
// index (DATA_LOSS if anything is off), and reads tensors on demand,
// checking each one's size and CRC32C before handing it out.
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

class CheckpointReader {
 public:
  // `path` is the file itself. NOT_FOUND if it does not exist.
  static Status Open(const std::string& path, std::unique_ptr<CheckpointReader>* out);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return file_size_; }
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
  CheckpointReader(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), file_size_(size) {}
  Status ReadAt(uint64_t offset, void* dst, uint64_t n) const;
  Status LoadIndex();

  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  std::vector<checkpoint::TensorEntry> entries_;
};

// The checkpoint file for `prefix`: PREFIX.afckpt if it exists, else PREFIX
// itself if it is a file (what TensorFlow's V1 Save writes). NOT_FOUND
// naming both otherwise.
Status ResolveCheckpointFile(const std::string& prefix, std::string* file);

}  // namespace af
