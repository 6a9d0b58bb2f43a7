// Reads TFRecord files (framing in core/io/record_writer.h) from any
// InputStream, so that compressed record files ("ZLIB", "GZIP") read the same
// way as plain ones. Checks both CRCs of every record, like RecordReader;
// this one needs no file size, so it also guards allocation by reading a
// record's payload chunk by chunk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/io/input_stream.h"
#include "core/status.h"

namespace af {

class RecordStreamReader {
 public:
  // `offset`: where `in` already stands in the file (a reader resumed from a
  // checkpoint), so that offset() and messages count from the file's start.
  explicit RecordStreamReader(std::unique_ptr<InputStream> in, uint64_t offset = 0)
      : in_(std::move(in)), offset_(offset) {}
  static Status Open(const std::string& path, Compression compression,
                     std::unique_ptr<RecordStreamReader>* out);

  // The next record. OUT_OF_RANGE at a clean end; DATA_LOSS naming the file
  // and the record's offset (in the decompressed data) for a truncated
  // record, a CRC mismatch or corrupt compression. An error sticks: the
  // stream cannot go back to the record's start.
  Status ReadRecord(std::string* record);
  // The offset of the next record in the (decompressed) data.
  uint64_t offset() const { return offset_; }
  const std::string& path() const { return in_->path(); }

 private:
  std::unique_ptr<InputStream> in_;
  uint64_t offset_ = 0;
  Status failed_;
};

}  // namespace af
