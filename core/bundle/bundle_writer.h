// BundleWriter: writes a TensorFlow tensor-bundle checkpoint (one data
// shard): PREFIX.data-00000-of-00001 and PREFIX.index. Tensors stream into
// the data file as they are added, each with its CRC32C; Finish commits the
// data file and then writes the index, each atomically
// (core/atomic_file_writer.h), so a reader never sees an index naming bytes
// that are not there. Dropped before Finish, it leaves nothing behind.
//
// Offsets are packed (no alignment), as TensorFlow's BundleWriter writes by
// default, so the same tensors give the same bytes as TensorFlow's files.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/atomic_file_writer.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_slice_spec.h"
#include "proto/tensor_bundle.pb.h"

namespace af::bundle {

class BundleWriter {
 public:
  static Status Create(const std::string& prefix, std::unique_ptr<BundleWriter>* out);

  // INVALID_ARGUMENT for an empty or duplicate key, an unsupported dtype, an
  // uninitialized tensor or a string element of 4 GiB or more (the format
  // checksums lengths as 32 bits).
  Status Add(const std::string& key, const Tensor& tensor);
  // A slice of the tensor `full_name` (a partitioned variable's shard):
  // the data under its slice key, the slice recorded in `full_name`'s entry.
  Status AddSlice(const std::string& full_name, const TensorSliceSpec& slice, const Tensor& tensor);
  Status Finish();

  const std::string& prefix() const { return prefix_; }

 private:
  BundleWriter(std::string prefix, std::unique_ptr<AtomicFileWriter> data)
      : prefix_(std::move(prefix)), data_(std::move(data)) {}
  Status WriteTensor(const Tensor& tensor, tensorflow::BundleEntryProto* entry);
  Status AppendChecksummed(const char* bytes, size_t n, uint32_t* crc);
  Status WriteStrings(const Tensor& tensor, uint32_t* crc);
  Status Fail(Status s);

  std::string prefix_;
  std::unique_ptr<AtomicFileWriter> data_;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;  // sorted, as the table needs
  Status status_;  // first failure: later calls repeat it
};

}  // namespace af::bundle
