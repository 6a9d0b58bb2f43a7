#include "core/checkpoint_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/atomic_file_writer.h"
#include "core/bundle/bundle_format.h"
#include "core/bundle/bundle_reader.h"
#include "core/crc32c.h"

namespace af {

using checkpoint::TensorEntry;

namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

Status ResolveCheckpointFile(const std::string& prefix, std::string* file) {
  const std::string index = bundle::MetaFilename(prefix);
  if (IsRegularFile(index)) {
    *file = index;
    return Status::OK();
  }
  const std::string with_suffix = checkpoint::DataFilePath(prefix);
  if (IsRegularFile(with_suffix)) {
    *file = with_suffix;
    return Status::OK();
  }
  if (IsRegularFile(prefix)) {
    *file = prefix;
    return Status::OK();
  }
  return errors::NotFound("no checkpoint at '", prefix, "' (none of ", index, ", ", with_suffix,
                          " and ", prefix, " is a file)");
}

Status CheckpointReader::Open(const std::string& path, std::unique_ptr<CheckpointReader>* out) {
  if (std::string_view(path).ends_with(bundle::kIndexSuffix)) {
    std::unique_ptr<bundle::BundleReader> b;
    AF_RETURN_IF_ERROR(
        bundle::BundleReader::Open(path.substr(0, path.size() - bundle::kIndexSuffix.size()), &b));
    std::unique_ptr<CheckpointReader> reader(new CheckpointReader(path, -1, b->index_size()));
    reader->entries_ = b->entries();
    reader->bundle_ = std::move(b);
    *out = std::move(reader);
    return Status::OK();
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open checkpoint " + path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return IoError("cannot stat checkpoint " + path, err);
  }
  std::unique_ptr<CheckpointReader> reader(
      new CheckpointReader(path, fd, static_cast<uint64_t>(st.st_size)));
  if (!S_ISREG(st.st_mode))
    return errors::InvalidArgument("checkpoint ", path, " is not a regular file");
  AF_RETURN_IF_ERROR(reader->LoadIndex());
  *out = std::move(reader);
  return Status::OK();
}

CheckpointReader::CheckpointReader(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), file_size_(size) {}

CheckpointReader::~CheckpointReader() {
  if (fd_ >= 0) ::close(fd_);
}

Status CheckpointReader::ReadAt(uint64_t offset, void* dst, uint64_t n) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot read checkpoint " + path_, errno);
    }
    if (r == 0)
      return errors::DataLoss("checkpoint ", path_, " ends early (it shrank while being read)");
    p += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<uint64_t>(r);
  }
  return Status::OK();
}

Status CheckpointReader::LoadIndex() {
  if (file_size_ < checkpoint::kHeaderSize + checkpoint::kFooterSize) {
    // Short files: still say "not a checkpoint" when the magic is wrong.
    std::string head(std::min<uint64_t>(file_size_, checkpoint::kMagic.size()), '\0');
    AF_RETURN_IF_ERROR(ReadAt(0, head.data(), head.size()));
    if (head != checkpoint::kMagic)
      return errors::DataLoss(path_, " is not an actorflow checkpoint (bad magic number)");
    return errors::DataLoss("checkpoint ", path_, " is truncated: ", file_size_, " bytes");
  }
  std::string header(checkpoint::kHeaderSize, '\0');
  AF_RETURN_IF_ERROR(ReadAt(0, header.data(), header.size()));
  AF_RETURN_IF_ERROR(checkpoint::DecodeHeader(header, path_));

  std::string footer_bytes(checkpoint::kFooterSize, '\0');
  AF_RETURN_IF_ERROR(
      ReadAt(file_size_ - checkpoint::kFooterSize, footer_bytes.data(), footer_bytes.size()));
  checkpoint::Footer footer;
  AF_RETURN_IF_ERROR(checkpoint::DecodeFooter(footer_bytes, file_size_, path_, &footer));

  std::string index(footer.index_size, '\0');
  AF_RETURN_IF_ERROR(ReadAt(footer.index_offset, index.data(), index.size()));
  if (crc32c::Value(index) != footer.index_crc32c)
    return errors::DataLoss("checkpoint ", path_, " is corrupt: index checksum mismatch");
  return checkpoint::DecodeIndex(index, footer.index_offset, path_, &entries_);
}

const TensorEntry* CheckpointReader::Find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const TensorEntry& e, std::string_view n) { return e.name < n; });
  if (it == entries_.end() || it->name != name) return nullptr;
  return &*it;
}

std::vector<const TensorEntry*> CheckpointReader::FindWithPrefix(std::string_view prefix) const {
  std::vector<const TensorEntry*> found;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), prefix,
                             [](const TensorEntry& e, std::string_view n) { return e.name < n; });
  for (; it != entries_.end() && std::string_view(it->name).starts_with(prefix); ++it)
    found.push_back(&*it);
  return found;
}

Status CheckpointReader::Read(const TensorEntry& e, Allocator* allocator, Tensor* out) const {
  if (bundle_ != nullptr) return bundle_->Read(e, allocator, out);
  if (allocator == nullptr) allocator = GetCpuAllocator();
  auto mismatch = [&] {
    return errors::DataLoss("checkpoint ", path_, " is corrupt: tensor '", e.name,
                            "' does not match its checksum");
  };
  Tensor t;
  AF_RETURN_IF_ERROR(Tensor::Allocate(allocator, e.dtype, e.shape, &t));
  const int64_t n = e.shape.num_elements();
  if (e.dtype != DT_STRING) {
    if (e.size > 0) AF_RETURN_IF_ERROR(ReadAt(e.offset, t.raw_data(), e.size));
    if (crc32c::Value(t.raw_data(), e.size) != e.crc32c) return mismatch();
    if (e.dtype == DT_BOOL) {
      // Only 0 and 1 are valid bools; never hand out another byte as one.
      auto* bytes = static_cast<unsigned char*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
    }
    *out = std::move(t);
    return Status::OK();
  }
  std::string raw(e.size, '\0');
  AF_RETURN_IF_ERROR(ReadAt(e.offset, raw.data(), raw.size()));
  if (crc32c::Value(raw) != e.crc32c) return mismatch();
  std::string* strings = t.data<std::string>();
  uint64_t pos = 8 * static_cast<uint64_t>(n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len;
    std::memcpy(&len, raw.data() + 8 * i, 8);
    if (len > e.size - pos)
      return errors::DataLoss("checkpoint ", path_, " is corrupt: string tensor '", e.name,
                              "' has lengths beyond its bytes");
    strings[i].assign(raw.data() + pos, len);
    pos += len;
  }
  if (pos != e.size)
    return errors::DataLoss("checkpoint ", path_, " is corrupt: string tensor '", e.name,
                            "' has ", e.size - pos, " unused bytes");
  *out = std::move(t);
  return Status::OK();
}

Status CheckpointReader::Read(std::string_view name, Tensor* out) const {
  const TensorEntry* e = Find(name);
  if (e == nullptr)
    return errors::NotFound("Key ", name, " not found in checkpoint ", path_);
  return Read(*e, nullptr, out);
}

Status CheckpointReader::VerifyAll() const {
  for (const TensorEntry& e : entries_) {
    Tensor t;
    AF_RETURN_IF_ERROR(Read(e, nullptr, &t));
  }
  return Status::OK();
}

}  // namespace af
