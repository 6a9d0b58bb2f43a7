// TensorFlow's tensor-bundle checkpoint layout (its "V2" checkpoints):
// PREFIX.index, a sorted table (core/bundle/table.h) whose entry "" is a
// BundleHeaderProto and every other entry a tensor's BundleEntryProto
// (proto/tensor_bundle.proto), and the data files
// PREFIX.data-00000-of-00001 ... holding the tensors' bytes.
//
// Facts of the format kept here, each checked against real TensorFlow files
// (tests/core/bundle_real_files_test.cc, docs/checkpoint-format.md):
// - fixed-size dtypes: the raw little-endian bytes; the entry's crc32c is the
//   masked CRC32C of them.
// - DT_STRING: a varint64 length per element, then a fixed32 holding the
//   masked CRC32C of the lengths each taken as a little-endian uint32, then
//   the elements' bytes; the entry's crc32c is the masked CRC32C of (the
//   uint32 lengths, the 4 checksum bytes, the elements' bytes) -- not of the
//   varint bytes as they lie in the file.
// - a partitioned variable: under its own name an entry with the full
//   shape and dtype and one TensorSliceProto per saved slice (no data); each
//   slice's data under EncodeTensorNameSlice(name, slice), an OrderedCode
//   key starting with a 0 byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/tensor_slice_spec.h"
#include "proto/tensor_bundle.pb.h"

namespace af::bundle {

// TensorFlow's kTensorBundleVersion / MinConsumer: what a header carries and
// what this reader understands.
inline constexpr int kBundleVersion = 1;
inline constexpr int kBundleMinConsumer = 0;
inline constexpr std::string_view kHeaderKey = "";
inline constexpr std::string_view kIndexSuffix = ".index";
// Bounds that keep a corrupt index from asking for absurd work.
inline constexpr int kMaxShards = 1 << 16;
inline constexpr uint64_t kMaxIndexBytes = uint64_t{1} << 31;

// "PREFIX.index".
std::string MetaFilename(std::string_view prefix);
// "PREFIX.data-00001-of-00004".
std::string DataFilename(std::string_view prefix, int shard, int num_shards);

// The header TensorFlow writes: num_shards, little-endian, version 1.
tensorflow::BundleHeaderProto MakeHeader(int num_shards);
// DATA_LOSS for a header that is not one, UNIMPLEMENTED for a big-endian
// bundle or one that needs a newer reader. `file` names the index.
Status CheckHeader(const tensorflow::BundleHeaderProto& header, const std::string& file);

// TensorFlow's key for a slice's data (checkpoint::EncodeTensorNameSlice):
// OrderedCode of 0, the name, the rank, then start and length of each dim
// (a whole dim as length -1).
std::string EncodeTensorNameSlice(std::string_view name, const std::vector<int64_t>& start,
                                  const std::vector<int64_t>& length);

// A slice as TensorFlow's proto: every extent explicit (start and length),
// the way the canonical spec strings of core/tensor_slice_spec.h are.
void SliceToProto(const TensorSliceSpec& slice, tensorflow::TensorSliceProto* proto);
// The spec of a proto'd slice of a tensor of `full_shape`; an extent without
// a length is the whole dim. INVALID_ARGUMENT for a rank mismatch or an
// extent outside the dim.
Status SliceFromProto(const tensorflow::TensorSliceProto& proto,
                      const std::vector<int64_t>& full_shape, TensorSliceSpec* out);

}  // namespace af::bundle
