#include "core/checkpoint_writer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/crc32c.h"

namespace af {

using checkpoint::TensorEntry;

Status CheckpointWriter::Create(const std::string& path, std::unique_ptr<CheckpointWriter>* out) {
  std::unique_ptr<AtomicFileWriter> file;
  AF_RETURN_IF_ERROR(AtomicFileWriter::Create(path, &file));
  const std::string header = checkpoint::EncodeHeader();
  AF_RETURN_IF_ERROR(file->Append(header.data(), header.size()));
  out->reset(new CheckpointWriter(std::move(file)));
  return Status::OK();
}

Status CheckpointWriter::AppendChecksummed(const char* data, size_t bytes, uint32_t* crc) {
  // A variable may be updated while it is saved (Save does not lock it, as
  // TensorFlow's does not): the checksum must cover exactly the bytes that
  // reach the file, so each chunk is copied once and both come from the copy.
  constexpr size_t kChunkBytes = size_t{1} << 20;
  std::vector<char> chunk(std::min(bytes, kChunkBytes));
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kChunkBytes, bytes - done);
    std::memcpy(chunk.data(), data + done, n);
    *crc = crc32c::Extend(*crc, chunk.data(), n);
    AF_RETURN_IF_ERROR(file_->Append(chunk.data(), n));
    done += n;
  }
  return Status::OK();
}

Status CheckpointWriter::WriteStrings(const Tensor& tensor, uint32_t* crc) {
  const int64_t n = tensor.NumElements();
  const std::string* s = tensor.data<std::string>();
  // Lengths first, in chunks, then the bytes of each element.
  constexpr int64_t kChunk = 4096;
  uint64_t lengths[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t end = std::min(n, begin + kChunk);
    for (int64_t i = begin; i < end; ++i) lengths[i - begin] = s[i].size();
    const size_t bytes = static_cast<size_t>(end - begin) * sizeof(uint64_t);
    *crc = crc32c::Extend(*crc, lengths, bytes);
    AF_RETURN_IF_ERROR(file_->Append(lengths, bytes));
  }
  for (int64_t i = 0; i < n; ++i) {
    *crc = crc32c::Extend(*crc, s[i].data(), s[i].size());
    AF_RETURN_IF_ERROR(file_->Append(s[i].data(), s[i].size()));
  }
  return Status::OK();
}

Status CheckpointWriter::Add(const std::string& name, const Tensor& tensor) {
  AF_RETURN_IF_ERROR(status_);
  const DataType dtype = BaseType(tensor.dtype());
  if (name.empty()) return errors::InvalidArgument("checkpoint tensor names must not be empty");
  if (name.size() > checkpoint::kMaxNameBytes)
    return errors::InvalidArgument("checkpoint tensor name of ", name.size(),
                                   " bytes is too long");
  if (names_.count(name) != 0)
    return errors::InvalidArgument("tensor '", name, "' is saved twice in ", path());
  if (!checkpoint::IsSupportedDtype(dtype))
    return errors::InvalidArgument("tensor '", name, "' has type ", DataTypeString(dtype),
                                   ", which a checkpoint cannot hold");
  if (!tensor.IsInitialized() && tensor.NumElements() > 0)
    return errors::InvalidArgument("tensor '", name, "' has no value to save");
  if (tensor.dims() > checkpoint::kMaxRank)
    return errors::InvalidArgument("tensor '", name, "' has rank ", tensor.dims(),
                                   "; checkpoints hold rank <= ", checkpoint::kMaxRank);

  // Align the tensor's bytes so that a reader could map them in place.
  const uint64_t pad = (checkpoint::kDataAlignment - file_->size() % checkpoint::kDataAlignment) %
                       checkpoint::kDataAlignment;
  Status s = file_->AppendZeros(pad);
  TensorEntry e;
  e.name = name;
  e.dtype = dtype;
  e.shape = tensor.shape();
  e.offset = file_->size();
  uint32_t crc = 0;
  if (s.ok()) {
    if (dtype == DT_STRING) {
      s = WriteStrings(tensor, &crc);
    } else if (tensor.NumElements() > 0) {
      s = AppendChecksummed(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes(),
                            &crc);
    }
  }
  if (!s.ok()) {
    status_ = s;
    file_->Abandon();
    return s;
  }
  e.size = file_->size() - e.offset;
  e.crc32c = crc;
  names_.insert(name);
  entries_.push_back(std::move(e));
  return Status::OK();
}

Status CheckpointWriter::Finish() {
  AF_RETURN_IF_ERROR(status_);
  std::sort(entries_.begin(), entries_.end(),
            [](const TensorEntry& a, const TensorEntry& b) { return a.name < b.name; });
  checkpoint::Footer footer;
  footer.index_offset = file_->size();
  const std::string index = checkpoint::EncodeIndex(entries_);
  footer.index_size = index.size();
  footer.index_crc32c = crc32c::Value(index);
  const std::string tail = checkpoint::EncodeFooter(footer);
  Status s = file_->Append(index.data(), index.size());
  if (s.ok()) s = file_->Append(tail.data(), tail.size());
  if (s.ok()) s = file_->Commit();
  if (!s.ok()) {
    status_ = s;
    file_->Abandon();
    return s;
  }
  status_ = errors::FailedPrecondition("checkpoint ", path(), " is already finished");
  return Status::OK();
}

}  // namespace af
