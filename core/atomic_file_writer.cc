#include "core/atomic_file_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace af {

Status IoError(const std::string& context, int err) {
  const std::string what = context + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return errors::NotFound(what);
    case EACCES:
    case EPERM:
    case EROFS:
      return errors::PermissionDenied(what);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return errors::ResourceExhausted(what);
    case EEXIST:
      return errors::AlreadyExists(what);
    case EISDIR:
    case ENAMETOOLONG:
    case EINVAL:
      return errors::InvalidArgument(what);
    case EIO:
      return errors::DataLoss(what);
    default:
      return errors::Unknown(what);
  }
}

namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A rename is durable once the directory entry is: fsync the directory.
Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open directory " + dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems cannot fsync directories; the data itself is synced.
  if (rc != 0 && err != EINVAL && err != EROFS) return IoError("cannot fsync " + dir, err);
  return Status::OK();
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path, std::string temp_path, int fd)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd) {}

Status AtomicFileWriter::Create(const std::string& path, std::unique_ptr<AtomicFileWriter>* out) {
  if (path.empty() || path.back() == '/')
    return errors::InvalidArgument("cannot write '", path, "': not a file name");
  // mkstemp gives a fresh name in the destination's directory (a rename
  // cannot cross file systems), created exclusively.
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return IoError("cannot create a temporary file for " + path, errno);
  ::fchmod(fd, 0644);  // mkstemp makes 0600; checkpoints are shared files
  out->reset(new AtomicFileWriter(path, std::move(temp), fd));
  return Status::OK();
}

AtomicFileWriter::~AtomicFileWriter() { Abandon(); }

void AtomicFileWriter::Abandon() {
  if (finished_) return;
  finished_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_path_.c_str());
}

Status AtomicFileWriter::WriteAll(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot write " + temp_path_, errno);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

Status AtomicFileWriter::Flush() {
  if (buffered_ == 0) return Status::OK();
  Status s = WriteAll(buffer_.data(), buffered_);
  buffered_ = 0;
  return s;
}

Status AtomicFileWriter::Append(const void* data, size_t n) {
  if (finished_) return errors::FailedPrecondition("writer for ", path_, " is closed");
  size_ += n;
  if (n >= kBufferSize / 4) {
    AF_RETURN_IF_ERROR(Flush());
    return WriteAll(data, n);
  }
  if (buffer_.empty()) buffer_.resize(kBufferSize);
  if (buffered_ + n > buffer_.size()) AF_RETURN_IF_ERROR(Flush());
  std::memcpy(buffer_.data() + buffered_, data, n);
  buffered_ += n;
  return Status::OK();
}

Status AtomicFileWriter::AppendZeros(size_t n) {
  static constexpr char kZeros[256] = {};
  while (n > 0) {
    const size_t chunk = n < sizeof kZeros ? n : sizeof kZeros;
    AF_RETURN_IF_ERROR(Append(kZeros, chunk));
    n -= chunk;
  }
  return Status::OK();
}

Status AtomicFileWriter::Commit() {
  if (finished_) return errors::FailedPrecondition("writer for ", path_, " is closed");
  Status s = Flush();
  if (s.ok() && ::fsync(fd_) != 0) s = IoError("cannot fsync " + temp_path_, errno);
  if (s.ok()) {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) s = IoError("cannot close " + temp_path_, errno);
  }
  if (s.ok() && ::rename(temp_path_.c_str(), path_.c_str()) != 0)
    s = IoError("cannot rename " + temp_path_ + " to " + path_, errno);
  if (!s.ok()) {
    Abandon();
    return s;
  }
  finished_ = true;
  return SyncDirectory(DirectoryOf(path_));
}

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::unique_ptr<AtomicFileWriter> writer;
  AF_RETURN_IF_ERROR(AtomicFileWriter::Create(path, &writer));
  AF_RETURN_IF_ERROR(writer->Append(contents.data(), contents.size()));
  return writer->Commit();
}

Status CreateParentDirectories(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return Status::OK();
  const std::string dir = path.substr(0, slash);
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
      return IoError("cannot create directory " + part, errno);
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return IoError("cannot create directory " + dir, errno);
  if (!S_ISDIR(st.st_mode))
    return errors::FailedPrecondition("cannot write under ", dir, ": not a directory");
  return Status::OK();
}

Status ReadSmallFile(const std::string& path, std::string* contents) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open " + path, errno);
  contents->clear();
  char buf[8192];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return IoError("cannot read " + path, err);
    }
    if (n == 0) break;
    contents->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return Status::OK();
}

}  // namespace af
