// The checkpoint of a reader, what ReaderSerializeState outputs and
// ReaderRestoreState takes: ReaderBase's counters (TensorFlow's
// ReaderBaseState) plus where the reader is inside its current work unit.
// Encoded as a tensorflow.ActorflowReaderState proto
// (proto/reader_state.proto) carrying a magic, a version, the reader type,
// the options positions depend on and a CRC, so that a string of another
// reader, of another layout, or damaged in any way is refused before the
// reader changes.
#pragma once

#include <cstdint>
#include <string>

#include "core/io/input_stream.h"
#include "core/status.h"

namespace af {

// Where a reader is inside its work unit; each format says what the fields
// mean (proto/reader_state.proto).
struct ReaderPosition {
  uint64_t record_index = 0;
  uint64_t byte_offset = 0;
};

struct ReaderState {
  std::string reader_type;  // ReaderBase::format()
  std::string options;
  int64_t work_started = 0;
  int64_t work_finished = 0;
  int64_t num_records_produced = 0;
  std::string current_work;  // empty unless a unit is in progress
  ReaderPosition position;

  // As TensorFlow's ReaderBase: one unit at most is started and unfinished.
  bool work_in_progress() const { return work_finished < work_started; }
};

std::string EncodeReaderState(const ReaderState& state);

// INVALID_ARGUMENT for a string that is not a reader state, is cut or
// damaged (CRC), has a version this build does not know, or holds
// impossible counters. Says nothing about the reader it is meant for.
Status DecodeReaderState(const std::string& bytes, ReaderState* state);

// "", "ZLIB" or "GZIP", as the compression attrs spell it.
const char* CompressionName(Compression compression);

// DATA_LOSS: `file` ends after `size` bytes, before the saved `offset`.
Status CutBeforeSavedOffset(const std::string& file, uint64_t size, uint64_t offset);

// Skips forward to byte `offset` of `in` (counted from the start of the
// stream); DATA_LOSS naming the file when it ends before: it was cut after
// the state was saved.
Status SkipToSavedOffset(InputStream* in, uint64_t offset);

}  // namespace af
