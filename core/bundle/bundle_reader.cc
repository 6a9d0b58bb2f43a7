#include "core/bundle/bundle_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <map>

#include "core/atomic_file_writer.h"
#include "core/bundle/bundle_format.h"
#include "core/bundle/coding.h"
#include "core/bundle/table.h"
#include "core/checkpoint_slices.h"
#include "core/crc32c.h"

namespace af::bundle {

using checkpoint::TensorEntry;

namespace {

template <typename... Args>
Status Corrupt(const std::string& file, Args&&... args) {
  return errors::DataLoss("checkpoint index ", file, " is corrupt: ", std::forward<Args>(args)...);
}

// Reads a whole file whose size is bounded first: a corrupt or hostile
// path cannot make us allocate more than the file holds.
Status ReadWholeFile(const std::string& path, uint64_t limit, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open checkpoint index " + path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return errors::InvalidArgument("checkpoint index ", path, " is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return errors::DataLoss("checkpoint index ", path, " is implausibly large (", st.st_size,
                            " bytes)");
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    const ssize_t r = ::read(fd, out->data() + done, out->size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int err = errno;
      ::close(fd);
      if (r == 0) return errors::DataLoss("checkpoint index ", path, " shrank while being read");
      return IoError("cannot read checkpoint index " + path, err);
    }
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  return Status::OK();
}

// The dtype, shape and byte range of an entry that holds data; everything
// checked that can be without the data file.
Status EntryFromProto(const std::string& file, const std::string& name,
                      const tensorflow::BundleEntryProto& proto, int num_shards, TensorEntry* out) {
  const auto dtype = static_cast<DataType>(proto.dtype());
  if (!checkpoint::IsSupportedDtype(dtype))
    return Corrupt(file, "tensor '", name, "' has unsupported dtype ", proto.dtype());
  if (proto.shape().unknown_rank() || proto.shape().dim_size() > checkpoint::kMaxRank)
    return Corrupt(file, "tensor '", name, "' has an unknown or too large rank");
  std::vector<int64_t> dims;
  for (const auto& d : proto.shape().dim()) dims.push_back(d.size());
  TensorShape shape;
  if (!TensorShape::Build(dims, &shape).ok())
    return Corrupt(file, "tensor '", name, "' has a bad shape");
  if (proto.shard_id() < 0 || proto.shard_id() >= num_shards)
    return Corrupt(file, "tensor '", name, "' is in shard ", proto.shard_id(), " of ", num_shards);
  if (proto.offset() < 0 || proto.size() < 0)
    return Corrupt(file, "tensor '", name, "' has a negative offset or size");
  const auto n = static_cast<uint64_t>(shape.num_elements());
  const auto size = static_cast<uint64_t>(proto.size());
  if (dtype != DT_STRING) {
    const auto width = static_cast<uint64_t>(DataTypeSize(dtype));
    if (n > std::numeric_limits<uint64_t>::max() / width || n * width != size)
      return Corrupt(file, "tensor '", name, "' of shape ", shape.DebugString(), " ",
                     DataTypeString(dtype), " claims ", size, " bytes");
  } else if (n > size || (n > 0 && size - n < 4)) {
    // Each element takes at least one length byte, and the lengths a checksum.
    return Corrupt(file, "string tensor '", name, "' of ", n, " elements claims ", size, " bytes");
  }
  out->name = name;
  out->dtype = dtype;
  out->shape = shape;
  out->offset = static_cast<uint64_t>(proto.offset());
  out->size = size;
  out->crc32c = proto.crc32c();
  out->shard_id = proto.shard_id();
  return Status::OK();
}

}  // namespace

Status BundleReader::Open(const std::string& prefix, std::unique_ptr<BundleReader>* out) {
  std::unique_ptr<BundleReader> reader(new BundleReader());
  reader->prefix_ = prefix;
  reader->index_path_ = MetaFilename(prefix);
  std::string bytes;
  AF_RETURN_IF_ERROR(ReadWholeFile(reader->index_path_, kMaxIndexBytes, &bytes));
  reader->index_size_ = bytes.size();
  AF_RETURN_IF_ERROR(reader->Load(bytes));
  *out = std::move(reader);
  return Status::OK();
}

BundleReader::~BundleReader() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

Status DecodeIndex(const std::string& bytes, const std::string& file,
                   tensorflow::BundleHeaderProto* header, std::vector<IndexEntry>* entries) {
  std::vector<KeyValue> table;
  Status s = ReadTable(bytes, &table);
  if (!s.ok()) return errors::DataLoss("checkpoint index ", file, ": ", s.message());
  if (table.empty() || table[0].first != kHeaderKey) return Corrupt(file, "no header entry");
  if (!header->ParseFromString(table[0].second)) return Corrupt(file, "the header does not parse");
  AF_RETURN_IF_ERROR(CheckHeader(*header, file));
  entries->clear();
  for (size_t i = 1; i < table.size(); ++i) {
    tensorflow::BundleEntryProto proto;
    const std::string& key = table[i].first;
    // Slice keys are binary; name them by position instead.
    const std::string shown = key[0] == '\0' ? "#" + std::to_string(i) + " (a slice)" : key;
    if (!proto.ParseFromString(table[i].second))
      return Corrupt(file, "the entry of tensor '", shown, "' does not parse");
    entries->emplace_back(key, std::move(proto));
  }
  return Status::OK();
}

Status ReadIndex(const std::string& prefix, tensorflow::BundleHeaderProto* header,
                 std::vector<IndexEntry>* entries) {
  const std::string file = MetaFilename(prefix);
  std::string bytes;
  AF_RETURN_IF_ERROR(ReadWholeFile(file, kMaxIndexBytes, &bytes));
  return DecodeIndex(bytes, file, header, entries);
}

Status BundleReader::Load(const std::string& bytes) {
  const std::string& file = index_path_;
  tensorflow::BundleHeaderProto header;
  std::vector<IndexEntry> all;
  AF_RETURN_IF_ERROR(DecodeIndex(bytes, file, &header, &all));
  num_shards_ = header.num_shards();

  std::map<std::string, tensorflow::BundleEntryProto> slice_data;  // by slice key
  std::vector<IndexEntry> named;
  for (auto& [key, proto] : all) {
    if (key[0] == '\0') {
      slice_data.emplace(key, std::move(proto));
    } else {
      named.emplace_back(key, std::move(proto));
    }
  }
  for (const auto& [name, proto] : named) {
    if (proto.slices_size() == 0) {
      TensorEntry e;
      AF_RETURN_IF_ERROR(EntryFromProto(file, name, proto, num_shards_, &e));
      listing_.push_back({name, e.dtype, e.shape, 0});
      entries_.push_back(std::move(e));
      continue;
    }
    // A partitioned variable: its full entry holds no data, only where the
    // slices are.
    std::vector<int64_t> full;
    for (const auto& d : proto.shape().dim()) full.push_back(d.size());
    TensorShape full_shape;
    if (full.empty() || full.size() > static_cast<size_t>(checkpoint::kMaxRank) ||
        !TensorShape::Build(full, &full_shape).ok())
      return Corrupt(file, "partitioned tensor '", name, "' has a bad full shape");
    const auto dtype = static_cast<DataType>(proto.dtype());
    if (!checkpoint::IsSupportedDtype(dtype))
      return Corrupt(file, "tensor '", name, "' has unsupported dtype ", proto.dtype());
    for (const auto& slice_proto : proto.slices()) {
      TensorSliceSpec slice;
      Status bad = SliceFromProto(slice_proto, full, &slice);
      if (!bad.ok()) return Corrupt(file, "tensor '", name, "': ", bad.message());
      const std::string spec = TensorSliceSpecString(slice);
      // TensorFlow keys a whole-dim extent by length -1; ours are explicit.
      std::vector<int64_t> start, length;
      for (int d = 0; d < slice_proto.extent_size(); ++d) {
        const auto& x = slice_proto.extent(d);
        const bool whole = x.has_length_case() != tensorflow::TensorSliceProto::Extent::kLength;
        start.push_back(x.start());
        length.push_back(whole ? -1 : x.length());
      }
      auto it = slice_data.find(EncodeTensorNameSlice(name, start, length));
      if (it == slice_data.end())
        it = slice_data.find(EncodeTensorNameSlice(name, slice.offset, slice.length));
      if (it == slice_data.end()) {
        // A whole dim may also be keyed with start -1.
        for (size_t d = 0; d < start.size(); ++d)
          if (length[d] == -1) start[d] = -1;
        it = slice_data.find(EncodeTensorNameSlice(name, start, length));
      }
      if (it == slice_data.end())
        return Corrupt(file, "slice '", spec, "' of tensor '", name, "' has no data entry");
      TensorEntry e;
      AF_RETURN_IF_ERROR(
          EntryFromProto(file, name + "[" + spec + "]", it->second, num_shards_, &e));
      if (e.dtype != dtype || e.shape.dim_vector() != slice.length)
        return Corrupt(file, "slice '", spec, "' of tensor '", name, "' holds ",
                       DataTypeString(e.dtype), " ", e.shape.DebugString());
      e.name = SliceKey(name, slice);
      entries_.push_back(std::move(e));
    }
    listing_.push_back({name, dtype, full_shape, proto.slices_size()});
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const TensorEntry& a, const TensorEntry& b) { return a.name < b.name; });
  for (size_t i = 1; i < entries_.size(); ++i)
    if (entries_[i].name == entries_[i - 1].name)
      return Corrupt(file, "tensor '", entries_[i].name, "' is listed twice");
  fds_.assign(static_cast<size_t>(num_shards_), -1);
  sizes_.assign(static_cast<size_t>(num_shards_), 0);
  return Status::OK();
}

Status BundleReader::DataFile(int shard, int* fd, uint64_t* size) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = fds_[static_cast<size_t>(shard)];
  if (slot < 0) {
    const std::string path = DataFilename(prefix_, shard, num_shards_);
    const int f = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f < 0) {
      const int err = errno;
      if (err == ENOENT)  // NOT_FOUND, as TensorFlow reports a missing shard
        return errors::NotFound("checkpoint ", index_path_, " names data file ", path,
                                ", which does not exist");
      return IoError("cannot open checkpoint data file " + path, err);
    }
    struct stat st;
    if (::fstat(f, &st) != 0) {
      const int err = errno;
      ::close(f);
      return IoError("cannot stat checkpoint data file " + path, err);
    }
    slot = f;
    sizes_[static_cast<size_t>(shard)] = static_cast<uint64_t>(st.st_size);
  }
  *fd = slot;
  *size = sizes_[static_cast<size_t>(shard)];
  return Status::OK();
}

Status BundleReader::ReadAt(int fd, const std::string& file, uint64_t offset, void* dst,
                            uint64_t n) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot read checkpoint data file " + file, errno);
    }
    if (r == 0) return errors::DataLoss("checkpoint data file ", file, " shrank while being read");
    p += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<uint64_t>(r);
  }
  return Status::OK();
}

Status BundleReader::DecodeStrings(const TensorEntry& e, const std::string& file,
                                   const std::string& raw, Tensor* t) const {
  auto corrupt = [&](const char* what) {
    return errors::DataLoss("checkpoint ", file, " is corrupt: string tensor '", e.name, "' ",
                            what);
  };
  const int64_t n = e.shape.num_elements();
  std::string_view in(raw);
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len;
    if (!GetVarint64(&in, &len) || len > 0xffffffffu) return corrupt("has a bad length");
    char le[4];
    for (int b = 0; b < 4; ++b) le[b] = static_cast<char>((len >> (8 * b)) & 0xff);
    crc = crc32c::Extend(crc, le, 4);
    lengths[static_cast<size_t>(i)] = len;
    total += len;  // each < 2^32 and n < 2^31 bytes of varints: no overflow
  }
  if (in.size() < 4) return corrupt("ends inside its length checksum");
  if (DecodeFixed32(in.data()) != crc32c::Mask(crc))
    return corrupt("does not match its checksum (lengths)");
  crc = crc32c::Extend(crc, in.data(), 4);
  in.remove_prefix(4);
  if (total != in.size()) return corrupt("has lengths that do not add up to its size");
  crc = crc32c::Extend(crc, in.data(), in.size());
  if (crc32c::Mask(crc) != e.crc32c) return corrupt("does not match its checksum");
  std::string* strings = t->data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    strings[i].assign(in.data(), lengths[static_cast<size_t>(i)]);
    in.remove_prefix(lengths[static_cast<size_t>(i)]);
  }
  return Status::OK();
}

Status BundleReader::Read(const TensorEntry& e, Allocator* allocator, Tensor* out) const {
  if (allocator == nullptr) allocator = GetCpuAllocator();
  if (e.shard_id < 0 || e.shard_id >= num_shards_)
    return errors::InvalidArgument("tensor '", e.name, "' is not an entry of ", index_path_);
  int fd;
  uint64_t file_size;
  AF_RETURN_IF_ERROR(DataFile(e.shard_id, &fd, &file_size));
  const std::string file = DataFilename(prefix_, e.shard_id, num_shards_);
  // Bounds first: nothing is allocated for bytes the file does not hold.
  if (e.offset > file_size || e.size > file_size - e.offset)
    return errors::DataLoss("checkpoint ", file, " is truncated: tensor '", e.name,
                            "' needs bytes [", e.offset, ", ", e.offset + e.size, ") of a ",
                            file_size, "-byte file");
  Tensor t;
  AF_RETURN_IF_ERROR(Tensor::Allocate(allocator, e.dtype, e.shape, &t));
  if (e.dtype == DT_STRING) {
    std::string raw(e.size, '\0');
    AF_RETURN_IF_ERROR(ReadAt(fd, file, e.offset, raw.data(), raw.size()));
    AF_RETURN_IF_ERROR(DecodeStrings(e, file, raw, &t));
    *out = std::move(t);
    return Status::OK();
  }
  if (e.size > 0) AF_RETURN_IF_ERROR(ReadAt(fd, file, e.offset, t.raw_data(), e.size));
  if (crc32c::Mask(crc32c::Value(t.raw_data(), e.size)) != e.crc32c)
    return errors::DataLoss("checkpoint ", file, " is corrupt: tensor '", e.name,
                            "' does not match its checksum");
  if (e.dtype == DT_BOOL) {
    // Only 0 and 1 are valid bools; never hand out another byte as one.
    auto* bytes = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < e.shape.num_elements(); ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
  }
  *out = std::move(t);
  return Status::OK();
}

Status BundleFiles(const std::string& prefix, std::vector<std::string>* files) {
  std::unique_ptr<BundleReader> reader;
  AF_RETURN_IF_ERROR(BundleReader::Open(prefix, &reader));
  for (int i = 0; i < reader->num_shards(); ++i)
    files->push_back(DataFilename(prefix, i, reader->num_shards()));
  files->push_back(reader->index_path());
  return Status::OK();
}

}  // namespace af::bundle
