#include "core/io/input_stream.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/file_access_policy.h"

namespace af {
namespace {

constexpr size_t kChunk = 64 << 10;
constexpr size_t kMaxGrowth = 1 << 20;  // ReadAppend grows `out` by at most this per read

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class FileInputStream : public InputStream {
 public:
  static Status Open(const std::string& path, std::unique_ptr<FileInputStream>* out) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      const int err = errno;
      if (err == ENOENT) return errors::NotFound(path, ": ", std::strerror(err));
      if (err == EACCES) return errors::PermissionDenied(path, ": ", std::strerror(err));
      return errors::Unavailable("cannot open ", path, ": ", std::strerror(err));
    }
    out->reset(new FileInputStream(path, f));
    return Status::OK();
  }
  ~FileInputStream() override { std::fclose(file_); }

  Status Read(char* buf, size_t n, size_t* got) override {
    *got = std::fread(buf, 1, n, file_);
    position_ += *got;
    if (*got < n && std::ferror(file_))
      return errors::Unavailable("error reading ", path(), " at offset ", position_);
    return Status::OK();
  }

  // Seeks, so that restoring a reader's position (kernels/io/reader_state.h)
  // costs no reading; what is not a regular file is read through.
  Status Skip(uint64_t n, uint64_t* skipped) override {
    struct stat st;
    const off_t here = ::ftello(file_);
    if (here < 0 || ::fstat(::fileno(file_), &st) != 0 || !S_ISREG(st.st_mode))
      return InputStream::Skip(n, skipped);
    const uint64_t left = st.st_size > here ? static_cast<uint64_t>(st.st_size - here) : 0;
    const uint64_t step = std::min(n, left);
    if (::fseeko(file_, here + static_cast<off_t>(step), SEEK_SET) != 0)
      return errors::Unavailable("cannot seek in ", path(), " to offset ", position_ + step, ": ",
                                 std::strerror(errno));
    position_ += step;
    *skipped = step;
    return Status::OK();
  }

  // The first bytes of the file, leaving the position where it was (0).
  size_t Peek(unsigned char* buf, size_t n) {
    const size_t got = std::fread(buf, 1, n, file_);
    std::clearerr(file_);
    std::fseek(file_, 0, SEEK_SET);
    return got;
  }

 private:
  FileInputStream(std::string path, std::FILE* f) : InputStream(std::move(path)), file_(f) {}
  std::FILE* file_;
};

// Inflates ZLIB or GZIP data. Concatenated streams (gzip members) are read
// one after another, as gunzip does; bytes after the last stream that do not
// start a valid one are DATA_LOSS. zlib verifies the adler32 / CRC32 trailer
// of each stream.
class ZlibInputStream : public InputStream {
 public:
  ZlibInputStream(std::unique_ptr<InputStream> source, Compression compression)
      : InputStream(source->path()), source_(std::move(source)), in_(kChunk) {
    std::memset(&strm_, 0, sizeof strm_);
    const int window_bits = compression == Compression::kGzip ? MAX_WBITS + 16 : MAX_WBITS;
    init_ = inflateInit2(&strm_, window_bits);
  }
  ~ZlibInputStream() override {
    if (init_ == Z_OK) inflateEnd(&strm_);
  }

  Status Read(char* buf, size_t n, size_t* got) override {
    *got = 0;
    if (init_ != Z_OK)
      return errors::ResourceExhausted(path(), ": cannot start zlib (code ", init_, ")");
    while (*got < n && !finished_) {
      if (strm_.avail_in == 0 && !source_eof_) {
        size_t filled = 0;
        AF_RETURN_IF_ERROR(source_->Read(reinterpret_cast<char*>(in_.data()), in_.size(), &filled));
        if (filled == 0) source_eof_ = true;
        strm_.next_in = in_.data();
        strm_.avail_in = static_cast<uInt>(filled);
      }
      if (strm_.avail_in == 0 && source_eof_) {
        if (in_stream_)
          return errors::DataLoss(path(), ": truncated compressed data (ends inside a stream, ",
                                  position_ + *got, " bytes decompressed)");
        finished_ = true;
        break;
      }
      const size_t want = std::min<size_t>(n - *got, 1u << 30);
      strm_.next_out = reinterpret_cast<Bytef*>(buf + *got);
      strm_.avail_out = static_cast<uInt>(want);
      in_stream_ = true;
      const int rc = inflate(&strm_, Z_NO_FLUSH);
      *got += want - strm_.avail_out;
      if (rc == Z_STREAM_END) {
        // Another stream may follow; the next round starts it.
        in_stream_ = false;
        inflateReset(&strm_);
      } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
        return errors::DataLoss(
            path(), ": corrupt compressed data after ", position_ + *got,
            " decompressed bytes: ", strm_.msg != nullptr ? strm_.msg : "bad stream");
      } else if (rc == Z_MEM_ERROR) {
        return errors::ResourceExhausted(path(), ": out of memory inflating");
      }
      // Z_OK and Z_BUF_ERROR: more input or more output space next round.
    }
    position_ += *got;
    return Status::OK();
  }

 private:
  std::unique_ptr<InputStream> source_;
  std::vector<unsigned char> in_;
  z_stream strm_;
  int init_ = Z_OK;
  bool source_eof_ = false;
  bool in_stream_ = false;  // some input of the current stream was consumed
  bool finished_ = false;
};

}  // namespace

Status ParseCompression(const std::string& name, Compression* out) {
  if (name.empty()) {
    *out = Compression::kNone;
  } else if (name == "ZLIB") {
    *out = Compression::kZlib;
  } else if (name == "GZIP") {
    *out = Compression::kGzip;
  } else {
    return errors::InvalidArgument("unsupported compression '", name,
                                   "' (expected \"\", \"ZLIB\" or \"GZIP\")");
  }
  return Status::OK();
}

Status InputStream::ReadAppend(size_t n, std::string* out, size_t* got) {
  *got = 0;
  while (*got < n) {
    const size_t chunk = std::min(n - *got, kMaxGrowth);
    const size_t old = out->size();
    out->resize(old + chunk);
    size_t g = 0;
    Status s = Read(out->data() + old, chunk, &g);
    out->resize(old + g);
    *got += g;
    AF_RETURN_IF_ERROR(s);
    if (g < chunk) break;
  }
  return Status::OK();
}

Status InputStream::Skip(uint64_t n, uint64_t* skipped) {
  *skipped = 0;
  char scratch[4096];
  while (*skipped < n) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n - *skipped, sizeof scratch));
    size_t g = 0;
    AF_RETURN_IF_ERROR(Read(scratch, chunk, &g));
    *skipped += g;
    if (g < chunk) break;
  }
  return Status::OK();
}

Status OpenInputStream(const std::string& path, Compression compression,
                       std::unique_ptr<InputStream>* out) {
  AF_RETURN_IF_ERROR(CheckFileAccess(path));
  std::unique_ptr<FileInputStream> file;
  AF_RETURN_IF_ERROR(FileInputStream::Open(path, &file));
  if (compression == Compression::kNone) {
    *out = std::move(file);
  } else {
    *out = std::make_unique<ZlibInputStream>(std::move(file), compression);
  }
  return Status::OK();
}

Status OpenMaybeGzipped(const std::string& path, std::unique_ptr<InputStream>* out) {
  AF_RETURN_IF_ERROR(CheckFileAccess(path));
  std::unique_ptr<FileInputStream> file;
  AF_RETURN_IF_ERROR(FileInputStream::Open(path, &file));
  unsigned char magic[2] = {0, 0};
  const bool gzip_magic = file->Peek(magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (gzip_magic || EndsWith(path, ".gz")) {
    *out = std::make_unique<ZlibInputStream>(std::move(file), Compression::kGzip);
  } else {
    *out = std::move(file);
  }
  return Status::OK();
}

}  // namespace af
