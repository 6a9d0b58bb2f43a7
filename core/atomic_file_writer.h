// AtomicFileWriter: writes a file so that readers see either the old file
// or the complete new one, never a partial one: the bytes go to a temporary
// file next to the destination, which is fsynced and then renamed over it
// (and the directory fsynced, so the rename survives a crash). A writer
// destroyed before Commit removes its temporary file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace af {

class AtomicFileWriter {
 public:
  // Creates the temporary file. NOT_FOUND if the directory does not exist,
  // PERMISSION_DENIED if it cannot be written.
  static Status Create(const std::string& path, std::unique_ptr<AtomicFileWriter>* out);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // Small appends are buffered; large ones go straight from `data` to the
  // file.
  Status Append(const void* data, size_t n);
  Status AppendZeros(size_t n);
  // Bytes appended so far.
  uint64_t size() const { return size_; }

  // Flushes, fsyncs, renames onto the destination and fsyncs the directory.
  // After a failure nothing is left behind and the destination is as it was.
  Status Commit();
  // Removes the temporary file (also what the destructor does).
  void Abandon();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFileWriter(std::string path, std::string temp_path, int fd);
  Status Flush();
  Status WriteAll(const void* data, size_t n);

  static constexpr size_t kBufferSize = 1 << 20;
  std::string path_, temp_path_;
  int fd_ = -1;
  std::vector<char> buffer_;
  size_t buffered_ = 0;
  uint64_t size_ = 0;
  bool finished_ = false;
};

// A Status for a failed system call: errno mapped to TensorFlow's codes
// (ENOENT -> NOT_FOUND, EACCES -> PERMISSION_DENIED, ENOSPC ->
// RESOURCE_EXHAUSTED, ...), the message "<context>: <strerror>".
Status IoError(const std::string& context, int err);

// Writes `contents` to `path` atomically.
Status WriteFileAtomically(const std::string& path, const std::string& contents);
// Creates the directory that will hold `path` and any missing parents.
Status CreateParentDirectories(const std::string& path);
// Reads a whole (small) file.
Status ReadSmallFile(const std::string& path, std::string* contents);

}  // namespace af
