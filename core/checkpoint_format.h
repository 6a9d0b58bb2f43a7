// The checkpoint file format (docs/checkpoint-format.md): one file,
// PREFIX.afckpt, holding a header, each tensor's bytes, an index and a
// footer. Every tensor and the index carry a CRC32C; readers check sizes,
// bounds and CRCs and report DATA_LOSS for anything that does not add up.
// This file holds the layout and its encoding; CheckpointWriter and
// CheckpointReader do the I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af::checkpoint {

// "\x89AFCKPT\n": the high byte and the newline catch text-mode mangling.
inline constexpr std::string_view kMagic{"\x89" "AFCKPT\n", 8};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderSize = 16;  // magic, u32 version, u32 CRC of those 12 bytes
inline constexpr size_t kFooterSize = 32;  // u64 index offset, u64 index size,
                                           // u32 index CRC, u32 footer CRC, magic
inline constexpr size_t kDataAlignment = 64;  // each tensor's bytes start aligned
inline constexpr std::string_view kFileSuffix = ".afckpt";
// The listing of a directory's checkpoints (TensorFlow's name and syntax).
inline constexpr std::string_view kStateFileName = "checkpoint";

// Limits that keep a corrupt index from asking for absurd allocations.
inline constexpr int kMaxRank = 64;
inline constexpr size_t kMaxNameBytes = 1 << 16;

struct TensorEntry {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  uint64_t offset = 0;  // of the tensor's bytes in the file
  uint64_t size = 0;    // bytes
  uint32_t crc32c = 0;  // of those bytes (a tensor bundle's: masked, as stored)
  int32_t shard_id = 0;  // a tensor bundle's data file (core/bundle/)
};

struct Footer {
  uint64_t index_offset = 0;
  uint64_t index_size = 0;
  uint32_t index_crc32c = 0;
};

// The file holding the checkpoint saved under `prefix`.
inline std::string DataFilePath(std::string_view prefix) {
  return std::string(prefix) + std::string(kFileSuffix);
}

// Types a checkpoint can hold: every fixed-size type and string.
bool IsSupportedDtype(DataType dtype);
// Bytes a tensor's data takes in the file. Strings: a little-endian u64
// length per element, then the elements' bytes.
uint64_t EncodedSize(DataType dtype, const TensorShape& shape, const void* strings);

std::string EncodeHeader();
// DATA_LOSS for a wrong magic or checksum, UNIMPLEMENTED for another
// version.
Status DecodeHeader(std::string_view bytes, const std::string& file);

std::string EncodeFooter(const Footer& footer);
Status DecodeFooter(std::string_view bytes, uint64_t file_size, const std::string& file,
                    Footer* out);

// Entries must be sorted by name and unique.
std::string EncodeIndex(const std::vector<TensorEntry>& entries);
// Checks every field: names sorted and unique, valid dtypes and shapes,
// data within [kHeaderSize, data_end), sizes that match the shape.
Status DecodeIndex(std::string_view bytes, uint64_t data_end, const std::string& file,
                   std::vector<TensorEntry>* out);

}  // namespace af::checkpoint
