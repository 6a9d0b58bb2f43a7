// Sequential byte sources for the file readers (whitepaper §4.5): a plain
// file, or a ZLIB or GZIP file decompressed on the fly with zlib, so that
// every reader format can read compressed files without unpacking them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"

namespace af {

// TensorFlow's compression_type / encoding attr values: "", "ZLIB", "GZIP".
enum class Compression { kNone, kZlib, kGzip };
// INVALID_ARGUMENT for any other name.
Status ParseCompression(const std::string& name, Compression* out);

class InputStream {
 public:
  virtual ~InputStream() = default;
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Reads up to `n` bytes into `buf`; `*got < n` only at the end of the
  // stream. DATA_LOSS naming the file for corrupt or truncated compressed
  // data, UNAVAILABLE for I/O errors.
  virtual Status Read(char* buf, size_t n, size_t* got) = 0;

  // Bytes handed out so far (offsets in the decompressed data).
  uint64_t position() const { return position_; }
  const std::string& path() const { return path_; }

  // Appends up to `n` bytes to `out`, fewer only at the end of the stream.
  // Grows `out` chunk by chunk, so a corrupt length cannot allocate more
  // than the stream actually holds.
  Status ReadAppend(size_t n, std::string* out, size_t* got);
  // Skips up to `n` bytes; `*skipped < n` only at the end of the stream.
  // Reads and discards; a plain file seeks instead.
  virtual Status Skip(uint64_t n, uint64_t* skipped);

 protected:
  explicit InputStream(std::string path) : path_(std::move(path)) {}
  uint64_t position_ = 0;  // implementations advance it

 private:
  std::string path_;
};

// Opens `path` for reading through `compression`. NOT_FOUND for a missing
// file, UNAVAILABLE for other open errors.
Status OpenInputStream(const std::string& path, Compression compression,
                       std::unique_ptr<InputStream>* out);

// Opens `path`, gunzipping it when it is named *.gz or starts with the gzip
// magic bytes (1f 8b).
Status OpenMaybeGzipped(const std::string& path, std::unique_ptr<InputStream>* out);

}  // namespace af
