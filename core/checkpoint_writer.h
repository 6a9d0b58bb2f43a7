// CheckpointWriter: streams tensors into a new checkpoint file. Tensor bytes
// go to the file as they are added (from the tensor's own memory, no copy);
// Finish writes the index and footer and atomically replaces `path`. A
// writer dropped before Finish leaves nothing behind, and a failed Finish
// leaves any earlier file at `path` untouched.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/atomic_file_writer.h"
#include "core/checkpoint_format.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

class CheckpointWriter {
 public:
  // `path` is the file (see checkpoint::DataFilePath for prefixes).
  static Status Create(const std::string& path, std::unique_ptr<CheckpointWriter>* out);

  // INVALID_ARGUMENT for a duplicate or empty name, an unsupported dtype
  // or an uninitialized tensor.
  Status Add(const std::string& name, const Tensor& tensor);
  Status Finish();

  const std::string& path() const { return file_->path(); }
  const std::string& temp_path() const { return file_->temp_path(); }

 private:
  explicit CheckpointWriter(std::unique_ptr<AtomicFileWriter> file) : file_(std::move(file)) {}
  // Appends `bytes` at `data`, extending `crc` over exactly what was written.
  Status AppendChecksummed(const char* data, size_t bytes, uint32_t* crc);
  Status WriteStrings(const Tensor& tensor, uint32_t* crc);

  std::unique_ptr<AtomicFileWriter> file_;
  std::vector<checkpoint::TensorEntry> entries_;
  std::set<std::string> names_;
  Status status_;  // first failure: later calls repeat it
};

}  // namespace af
