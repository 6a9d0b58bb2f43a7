#include "core/npy.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace af {

static_assert(std::endian::native == std::endian::little,
              ".npy data is read and written as little-endian without swapping");

namespace {

// Checks the data size against what is present before allocating anything.
Status CheckDataSize(const NpyHeader& header, uint64_t available) {
  if (available < header.data_bytes)
    return errors::DataLoss(".npy data truncated: shape ", header.shape.DebugString(),
                            " of ", DataTypeString(header.dtype), " needs ",
                            header.data_bytes, " bytes but only ", available,
                            " follow the header");
  if (available > header.data_bytes)
    return errors::InvalidArgument(".npy data size mismatch: shape ",
                                   header.shape.DebugString(), " of ",
                                   DataTypeString(header.dtype), " needs ",
                                   header.data_bytes, " bytes but ", available,
                                   " follow the header");
  return Status::OK();
}

Status AllocateFor(const NpyHeader& header, Allocator* allocator, Tensor* out) {
  if (allocator == nullptr) allocator = GetCpuAllocator();
  if (!allocator->IsHostAccessible())
    return errors::InvalidArgument("cannot read .npy data into memory of allocator ",
                                   allocator->Name(), ", which the CPU cannot write");
  return Tensor::Allocate(allocator, header.dtype, header.shape, out);
}

// numpy stores bools as bytes 0 and 1; any other byte is taken as true
// rather than left in a bool, where reading it would be undefined.
void NormalizeBools(Tensor* t) {
  if (t->dtype() != DT_BOOL) return;
  auto* bytes = static_cast<unsigned char*>(t->raw_data());
  for (int64_t i = 0; i < t->NumElements(); ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
}

Status CheckWritable(const Tensor& tensor) {
  if (!tensor.IsInitialized() && tensor.NumElements() > 0)
    return errors::InvalidArgument("cannot write a ", DataTypeString(tensor.dtype()),
                                   " tensor of shape ", tensor.shape().DebugString(),
                                   " that has no buffer");
  return Status::OK();
}

Status IoError(const std::string& what, const std::string& path, int err) {
  const std::string message =
      internal::StrCat(what, " .npy file '", path, "': ", std::strerror(err));
  switch (err) {
    case ENOENT: case ENOTDIR: return errors::NotFound(message);
    case EACCES: case EPERM: case EROFS: return errors::PermissionDenied(message);
    case ENOSPC: case EDQUOT: case ENOMEM: return errors::ResourceExhausted(message);
    case EISDIR: case ENAMETOOLONG: return errors::InvalidArgument(message);
    default: return errors::Unknown(message);
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads exactly `n` bytes or reports how the file fell short.
Status ReadExactly(std::FILE* f, char* dst, size_t n, const std::string& path,
                   const char* what) {
  const size_t got = n == 0 ? 0 : std::fread(dst, 1, n, f);
  if (got == n) return Status::OK();
  if (std::ferror(f)) return IoError("reading", path, errno);
  return errors::DataLoss("reading .npy file '", path, "': ", what, " truncated: expected ",
                          n, " bytes, got ", got);
}

Status ReadNpyFile(std::FILE* f, const std::string& path, Tensor* out, Allocator* allocator) {
  if (std::fseek(f, 0, SEEK_END) != 0) return IoError("seeking in", path, errno);
  const long end = std::ftell(f);
  if (end < 0) return IoError("seeking in", path, errno);
  if (std::fseek(f, 0, SEEK_SET) != 0) return IoError("seeking in", path, errno);
  const auto file_size = static_cast<uint64_t>(end);

  // The preamble says how long the header is; the header says how much data
  // follows. Each is checked against the file size before being read.
  std::string head(std::min<uint64_t>(file_size, kNpyMaxPreambleSize), '\0');
  AF_RETURN_IF_ERROR(ReadExactly(f, head.data(), head.size(), path, "preamble"));
  int major = 0;
  size_t header_end = 0;
  AF_RETURN_IF_ERROR(ParseNpyPreamble(head, &major, &header_end));
  if (header_end > file_size)
    return errors::DataLoss(".npy header truncated: it declares ",
                            header_end - NpyPreambleSize(major), " bytes but the file has ",
                            file_size, " bytes in all");
  const size_t have = head.size();
  head.resize(header_end);
  if (header_end > have)
    AF_RETURN_IF_ERROR(ReadExactly(f, head.data() + have, header_end - have, path, "header"));
  else if (std::fseek(f, static_cast<long>(header_end), SEEK_SET) != 0)
    return IoError("seeking in", path, errno);
  NpyHeader header;
  AF_RETURN_IF_ERROR(ParseNpyHeader(head, &header));
  AF_RETURN_IF_ERROR(CheckDataSize(header, file_size - header.data_offset));
  Tensor t;
  AF_RETURN_IF_ERROR(AllocateFor(header, allocator, &t));
  AF_RETURN_IF_ERROR(ReadExactly(f, static_cast<char*>(t.raw_data()), header.data_bytes, path,
                                 "data"));
  NormalizeBools(&t);
  *out = std::move(t);
  return Status::OK();
}

}  // namespace

Status ParseNpy(std::string_view bytes, Tensor* out, Allocator* allocator) {
  NpyHeader header;
  AF_RETURN_IF_ERROR(ParseNpyHeader(bytes, &header));
  AF_RETURN_IF_ERROR(CheckDataSize(header, bytes.size() - header.data_offset));
  Tensor t;
  AF_RETURN_IF_ERROR(AllocateFor(header, allocator, &t));
  if (header.data_bytes > 0)
    std::memcpy(t.raw_data(), bytes.data() + header.data_offset, header.data_bytes);
  NormalizeBools(&t);
  *out = std::move(t);
  return Status::OK();
}

Status SerializeNpy(const Tensor& tensor, std::string* out) {
  AF_RETURN_IF_ERROR(CheckWritable(tensor));
  AF_RETURN_IF_ERROR(FormatNpyHeader(tensor.dtype(), tensor.shape(), out));
  const std::string_view data = tensor.tensor_data();
  out->append(data.data(), data.size());
  return Status::OK();
}

Status ReadNpy(const std::string& path, Tensor* out, Allocator* allocator) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError("opening", path, errno);
  Status s = ReadNpyFile(f.get(), path, out, allocator);
  if (s.ok() || s.message().find(path) != std::string::npos) return s;
  return s.WithContext("reading .npy file '" + path + "'");
}

Status WriteNpy(const std::string& path, const Tensor& tensor) {
  Status s = CheckWritable(tensor);
  std::string header;
  if (s.ok()) s = FormatNpyHeader(tensor.dtype(), tensor.shape(), &header);
  if (!s.ok()) return s.WithContext("writing .npy file '" + path + "'");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return IoError("creating", path, errno);
  const std::string_view data = tensor.tensor_data();
  errno = 0;
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  ok = ok && (data.empty() || std::fwrite(data.data(), 1, data.size(), f) == data.size());
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok) return Status::OK();
  std::remove(path.c_str());  // no half-written file left behind
  return IoError("writing", path, err != 0 ? err : EIO);
}

}  // namespace af
