#include "core/bundle/bundle_writer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/bundle/bundle_format.h"
#include "core/bundle/coding.h"
#include "core/bundle/table.h"
#include "core/checkpoint_format.h"
#include "core/crc32c.h"

namespace af::bundle {
namespace {

void ShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto) {
  for (int d = 0; d < shape.dims(); ++d) proto->add_dim()->set_size(shape.dim_size(d));
}

}  // namespace

Status BundleWriter::Create(const std::string& prefix, std::unique_ptr<BundleWriter>* out) {
  if (prefix.empty()) return errors::InvalidArgument("checkpoint prefix is empty");
  std::unique_ptr<AtomicFileWriter> data;
  AF_RETURN_IF_ERROR(AtomicFileWriter::Create(DataFilename(prefix, 0, 1), &data));
  out->reset(new BundleWriter(prefix, std::move(data)));
  return Status::OK();
}

Status BundleWriter::Fail(Status s) {
  status_ = s;
  data_->Abandon();
  return s;
}

Status BundleWriter::AppendChecksummed(const char* bytes, size_t n, uint32_t* crc) {
  // A variable may change while it is saved (Save does not lock it, nor does
  // TensorFlow's): the checksum must cover exactly the bytes that reach the
  // file, so each chunk is copied once and both come from the copy.
  constexpr size_t kChunkBytes = size_t{1} << 20;
  std::vector<char> chunk(std::min(n, kChunkBytes));
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kChunkBytes, n - done);
    std::memcpy(chunk.data(), bytes + done, k);
    *crc = crc32c::Extend(*crc, chunk.data(), k);
    AF_RETURN_IF_ERROR(data_->Append(chunk.data(), k));
    done += k;
  }
  return Status::OK();
}

Status BundleWriter::WriteStrings(const Tensor& tensor, uint32_t* crc) {
  const int64_t n = tensor.NumElements();
  const std::string* s = tensor.data<std::string>();
  // Varint lengths in the file; the checksum is over them as uint32s
  // (core/bundle/bundle_format.h).
  std::string lengths;
  for (int64_t i = 0; i < n; ++i) {
    PutVarint64(&lengths, s[i].size());
    char le[4];
    const auto len = static_cast<uint32_t>(s[i].size());
    for (int b = 0; b < 4; ++b) le[b] = static_cast<char>((len >> (8 * b)) & 0xff);
    *crc = crc32c::Extend(*crc, le, 4);
  }
  AF_RETURN_IF_ERROR(data_->Append(lengths.data(), lengths.size()));
  std::string checksum;
  PutFixed32(&checksum, crc32c::Mask(*crc));
  *crc = crc32c::Extend(*crc, checksum.data(), checksum.size());
  AF_RETURN_IF_ERROR(data_->Append(checksum.data(), checksum.size()));
  for (int64_t i = 0; i < n; ++i) {
    *crc = crc32c::Extend(*crc, s[i].data(), s[i].size());
    AF_RETURN_IF_ERROR(data_->Append(s[i].data(), s[i].size()));
  }
  return Status::OK();
}

Status BundleWriter::WriteTensor(const Tensor& tensor, tensorflow::BundleEntryProto* entry) {
  const DataType dtype = BaseType(tensor.dtype());
  if (!checkpoint::IsSupportedDtype(dtype))
    return errors::InvalidArgument("type ", DataTypeString(dtype),
                                   " cannot be saved in a checkpoint");
  if (!tensor.IsInitialized() && tensor.NumElements() > 0)
    return errors::InvalidArgument("the tensor has no value to save");
  if (tensor.dims() > checkpoint::kMaxRank)
    return errors::InvalidArgument("rank ", tensor.dims(), " is above ", checkpoint::kMaxRank);
  if (dtype == DT_STRING) {
    const std::string* s = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i)
      if (s[i].size() > 0xffffffffu)
        return errors::InvalidArgument("string element ", i, " of ", s[i].size(),
                                       " bytes is too long for a tensor bundle (< 4 GiB)");
  }
  entry->set_dtype(static_cast<tensorflow::DataType>(dtype));
  ShapeToProto(tensor.shape(), entry->mutable_shape());
  entry->set_shard_id(0);
  const uint64_t offset = data_->size();
  entry->set_offset(static_cast<int64_t>(offset));
  uint32_t crc = 0;
  Status s;
  if (dtype == DT_STRING) {
    s = WriteStrings(tensor, &crc);
  } else if (tensor.NumElements() > 0) {
    s = AppendChecksummed(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes(), &crc);
  }
  if (!s.ok()) return Fail(s);
  entry->set_size(static_cast<int64_t>(data_->size() - offset));
  entry->set_crc32c(crc32c::Mask(crc));
  return Status::OK();
}

Status BundleWriter::Add(const std::string& key, const Tensor& tensor) {
  AF_RETURN_IF_ERROR(status_);
  if (key.empty()) return errors::InvalidArgument("checkpoint tensor names must not be empty");
  if (key.size() > checkpoint::kMaxNameBytes)
    return errors::InvalidArgument("checkpoint tensor name of ", key.size(), " bytes is too long");
  if (entries_.count(key) != 0)
    return errors::InvalidArgument("tensor '", key, "' is saved twice in ", MetaFilename(prefix_));
  tensorflow::BundleEntryProto entry;
  AF_RETURN_IF_ERROR(WriteTensor(tensor, &entry).WithContext("tensor '" + key + "'"));
  entries_.emplace(key, std::move(entry));
  return Status::OK();
}

Status BundleWriter::AddSlice(const std::string& full_name, const TensorSliceSpec& slice,
                              const Tensor& tensor) {
  AF_RETURN_IF_ERROR(status_);
  const std::string context =
      "tensor '" + full_name + "' slice '" + TensorSliceSpecString(slice) + "'";
  if (full_name.empty())
    return errors::InvalidArgument("checkpoint tensor names must not be empty");
  if (tensor.shape().dim_vector() != slice.length)
    return errors::InvalidArgument(context, ": the tensor has shape ",
                                   tensor.shape().DebugString());
  const DataType dtype = BaseType(tensor.dtype());
  auto it = entries_.find(full_name);
  if (it != entries_.end()) {
    const auto& full = it->second;
    std::vector<int64_t> dims;
    for (const auto& d : full.shape().dim()) dims.push_back(d.size());
    if (full.slices_size() == 0 || full.dtype() != static_cast<int>(dtype) ||
        dims != slice.full_shape)
      return errors::InvalidArgument(context, " does not match what is already saved as '",
                                     full_name, "'");
  }
  const std::string key = EncodeTensorNameSlice(full_name, slice.offset, slice.length);
  if (entries_.count(key) != 0)
    return errors::InvalidArgument(context, " is saved twice in ", MetaFilename(prefix_));
  tensorflow::BundleEntryProto entry;
  AF_RETURN_IF_ERROR(WriteTensor(tensor, &entry).WithContext(context));
  entries_.emplace(key, std::move(entry));
  tensorflow::BundleEntryProto& full = entries_[full_name];
  if (full.slices_size() == 0) {
    full.set_dtype(static_cast<tensorflow::DataType>(dtype));
    for (int64_t d : slice.full_shape) full.mutable_shape()->add_dim()->set_size(d);
  }
  SliceToProto(slice, full.add_slices());
  return Status::OK();
}

Status BundleWriter::Finish() {
  AF_RETURN_IF_ERROR(status_);
  Status s = data_->Commit();
  if (!s.ok()) return Fail(s);
  TableBuilder table;
  std::string value;
  MakeHeader(1).SerializeToString(&value);
  table.Add(kHeaderKey, value);
  for (const auto& [key, entry] : entries_) {
    // Deterministic: equal entries give equal bytes (and TensorFlow's).
    value.clear();
    entry.SerializeToString(&value);
    table.Add(key, value);
  }
  s = WriteFileAtomically(MetaFilename(prefix_), table.Finish());
  if (!s.ok()) {
    status_ = s;
    return s;
  }
  status_ =
      errors::FailedPrecondition("checkpoint ", MetaFilename(prefix_), " is already finished");
  return Status::OK();
}

}  // namespace af::bundle
